import { expect } from 'chai';
import { call, startTestCluster, type TestCluster } from '../helpers/emulator.js';

const CLUSTERS = '/apis/infrastructure.keymaster.dev/v1beta1/namespaces/default/awsclusters';
const CONFIG_MAPS = '/api/v1/namespaces/default/configmaps';
const MERGE = { 'Content-Type': 'application/merge-patch+json' };
const JSON_PATCH = { 'Content-Type': 'application/json-patch+json' };
const APPLY = { 'Content-Type': 'application/apply-patch+yaml' };
const cluster = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'infrastructure.keymaster.dev/v1beta1',
  kind: 'AWSCluster',
  metadata: { name },
  spec: { region: 'eu-west-1' },
  ...extra,
});

interface Status {
  message: string;
  reason?: string;
  code: number;
  details?: Record<string, unknown>;
}

/**
 * Error answers worded as kube-apiserver 1.37 words them: each expectation is what the real server
 * answered to the same request in the fidelity corpus (packages/testenv/test/fidelity/kube).
 */
describe('errors as kube-apiserver words them', function () {
  this.timeout(20_000);
  let cluster_: TestCluster;
  const send = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    call(cluster_.emulator, method, path, body, headers);
  const status = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const answer = await send(method, path, body, headers);
    return { ...(answer.body as Status), code: answer.status, warnings: answer.headers.get('warning') };
  };

  before(async () => {
    cluster_ = await startTestCluster();
    await send('POST', CLUSTERS, cluster('existing'));
    await send('POST', CONFIG_MAPS, { metadata: { name: 'existing' }, data: { a: '1' } });
  });
  after(() => cluster_.stop());

  it('words refused writes of objects', async () => {
    expect(await status('PUT', `${CLUSTERS}/existing`, cluster('existing'))).to.deep.include({
      code: 422,
      message:
        'awsclusters.infrastructure.keymaster.dev "existing" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update',
      details: {
        name: 'existing',
        group: 'infrastructure.keymaster.dev',
        kind: 'awsclusters',
        causes: [
          {
            reason: 'FieldValueInvalid',
            field: 'metadata.resourceVersion',
            message: 'Invalid value: 0: must be specified for an update',
          },
        ],
      },
    });
    const withVersion = await status('POST', CONFIG_MAPS, { metadata: { name: 'v', resourceVersion: '5' } });
    expect(withVersion).to.include({
      code: 500,
      message: 'resourceVersion should not be set on objects to be created',
    });
    expect(withVersion).to.not.have.property('reason');
    expect(
      await status('PUT', `${CONFIG_MAPS}/existing`, { metadata: { name: 'existing', resourceVersion: 'abc' } }),
    ).to.include({ code: 500, message: 'strconv.ParseUint: parsing "abc": invalid syntax' });
    const otherUid = await status('PUT', `${CONFIG_MAPS}/existing`, {
      metadata: { name: 'existing', uid: '00000000-0000-0000-0000-000000000000' },
    });
    expect(otherUid.code).to.equal(409);
    expect(otherUid.message).to.match(
      /^Operation cannot be fulfilled on configmaps "existing": StorageError: invalid object, Code: 4, Key: \/registry\/configmaps\/default\/existing, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: 00000000-0000-0000-0000-000000000000, UID in object meta: [0-9a-f-]{36}$/,
    );
    expect(await status('POST', CONFIG_MAPS, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } })).to.include(
      {
        code: 400,
        message:
          'Secret in version "v1" cannot be handled as a ConfigMap: converting (v1.Secret) to (core.ConfigMap): unknown conversion',
      },
    );
    expect(await status('POST', CLUSTERS, { ...cluster('k'), kind: 'AWSTagPolicy' })).to.deep.include({
      code: 422,
      message:
        'AWSTagPolicy.infrastructure.keymaster.dev "k" is invalid: kind: Invalid value: "AWSTagPolicy": must be AWSCluster',
    });
    const otherVersion = await status('POST', CLUSTERS, {
      ...cluster('v'),
      apiVersion: 'infrastructure.keymaster.dev/v9',
    });
    expect(otherVersion).to.include({ code: 400, warnings: '299 - "unknown field \\"spec\\""' });
  });

  it('words failed delete preconditions with the kind', async () => {
    const uid = await status('DELETE', `${CONFIG_MAPS}/existing`, { preconditions: { uid: 'x' } });
    expect(uid.details).to.deep.equal({ name: 'existing', kind: 'ConfigMap' });
    expect(uid.message).to.match(
      /^Operation cannot be fulfilled on ConfigMap "existing": the UID in the precondition \(x\) does not match the UID in record \(.+\)\. The object might have been deleted and then recreated$/,
    );
    const version = await status('DELETE', `${CLUSTERS}/existing`, { preconditions: { resourceVersion: '1' } });
    expect(version.message).to.match(
      /^Operation cannot be fulfilled on AWSCluster\.infrastructure\.keymaster\.dev "existing": the ResourceVersion in the precondition \(1\) does not match the ResourceVersion in record \(\d+\)\. The object might have been modified$/,
    );
  });

  it('refuses bad options with 422s naming the options kind', async () => {
    const cases: [string, string, unknown, Record<string, string>, string][] = [
      [
        'POST',
        `${CONFIG_MAPS}?fieldValidation=Sometimes`,
        { metadata: { name: 'f' } },
        {},
        'CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Sometimes": supported values: "", "Ignore", "Strict", "Warn"',
      ],
      [
        'DELETE',
        `${CONFIG_MAPS}/existing?propagationPolicy=Sometimes`,
        undefined,
        {},
        'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sometimes": supported values: "Foreground", "Background", "Orphan", "nil"',
      ],
      [
        'DELETE',
        `${CONFIG_MAPS}/existing`,
        { propagationPolicy: 'Orphan', orphanDependents: false },
        {},
        'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Invalid value: "Orphan": orphanDependents and deletionPropagation cannot be both set',
      ],
      [
        'GET',
        `${CONFIG_MAPS}?resourceVersionMatch=NotOlderThan`,
        undefined,
        {},
        'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
      ],
      [
        'GET',
        `${CONFIG_MAPS}?watch=true&sendInitialEvents=true`,
        undefined,
        {},
        'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
      ],
      [
        'GET',
        `${CONFIG_MAPS}?watch=true&resourceVersionMatch=Exact`,
        undefined,
        {},
        'ListOptions.meta.k8s.io "" is invalid: [resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided, resourceVersionMatch: Unsupported value: "Exact": supported values: "NotOlderThan"]',
      ],
      [
        'GET',
        `${CONFIG_MAPS}?sendInitialEvents=true`,
        undefined,
        {},
        'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list',
      ],
      [
        'PATCH',
        `${CONFIG_MAPS}/existing`,
        { apiVersion: 'v1', kind: 'ConfigMap' },
        APPLY,
        'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
      ],
    ];
    for (const [method, path, body, headers, message] of cases) {
      const answer = await status(method, path, body, headers);
      expect(answer, path).to.include({ code: 422, reason: 'Invalid', message });
      expect(answer.details, path).to.have.property('group', 'meta.k8s.io');
    }
  });

  it('words bad patches and media types', async () => {
    const path = `${CONFIG_MAPS}/existing`;
    expect(await status('PATCH', path, [1], MERGE)).to.include({
      code: 400,
      message: 'error decoding patch: json: cannot unmarshal array into Go value of type map[string]interface {}',
    });
    expect(await status('PATCH', path, { op: 'add' }, JSON_PATCH)).to.include({
      code: 400,
      message: 'error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp',
    });
    for (const operation of [
      { op: 'test', path: '/data/a', value: '2' },
      { op: 'remove', path: '/data/nothing' },
      { op: 'frobnicate', path: '/data/a' },
    ]) {
      expect(await status('PATCH', path, [operation], JSON_PATCH), operation.op).to.deep.include({
        code: 422,
        reason: 'Invalid',
        message: 'the server rejected our request due to an error in our request',
        details: {},
      });
    }
    const replaced = await send('PATCH', path, [{ op: 'replace', path: '/data/b', value: 'x' }], JSON_PATCH);
    expect(replaced.body).to.deep.include({ data: { a: '1', b: 'x' } });
    expect(await status('PATCH', path, 'x', { 'Content-Type': 'text/plain' })).to.deep.include({
      code: 415,
      message: '415: Unsupported Media Type',
      details: {},
    });
    expect(await status('GET', CONFIG_MAPS, undefined, { Accept: 'application/xml' })).to.include({
      code: 406,
      message:
        '406: Not Acceptable\n\nAvailable representations: application/json, application/yaml, application/vnd.kubernetes.protobuf, application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch',
    });
    expect(
      await status('GET', CONFIG_MAPS, undefined, { Accept: 'application/json;as=Nothing;v=v1;g=meta.k8s.io' }),
    ).to.include({
      code: 406,
      message:
        'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf',
    });
  });

  it('lists the patch types a resource takes when it refuses a known one', async () => {
    const strategic = await status(
      'PATCH',
      `${CLUSTERS}/existing`,
      {},
      { 'Content-Type': 'application/strategic-merge-patch+json' },
    );
    expect(strategic).to.include({
      code: 415,
      message:
        'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
    });
    expect(strategic).to.not.have.property('details');
  });

  it('words bad applies', async () => {
    expect(await status('PATCH', `${CONFIG_MAPS}/x?fieldManager=a`, { metadata: { name: 'x' } }, APPLY)).to.include({
      code: 400,
      message: 'invalid object type: /, Kind=',
    });
    expect(
      await status('PATCH', `${CONFIG_MAPS}/x?fieldManager=a`, { apiVersion: 'v1', metadata: { name: 'x' } }, APPLY),
    ).to.include({
      message: 'invalid object type: /v1, Kind=',
    });
    expect(
      await status(
        'PATCH',
        `${CONFIG_MAPS}/one?fieldManager=a`,
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'two' } },
        APPLY,
      ),
    ).to.include({ code: 400, message: 'the name of the object (two) does not match the name on the URL (one)' });
  });

  it('lists and watches: bad continue tokens, malformed query parameters, bad resourceVersions', async () => {
    const token = await status('GET', `${CONFIG_MAPS}?limit=1&continue=bm90LWEtdG9rZW4`);
    expect(token.code).to.equal(400);
    expect(token.message).to.match(/^invalid continue token: continue key is not valid: /);
    // Go's url.ParseQuery drops a pair it cannot decode: the list is answered as if it were absent.
    expect((await send('GET', `${CONFIG_MAPS}?continue=%%%`)).status).to.equal(200);
    const watch = await status('GET', `${CONFIG_MAPS}?watch=true&resourceVersion=abc`);
    expect(watch).to.include({
      code: 500,
      message: 'resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax',
    });
    expect(watch).to.not.have.property('reason');
  });
});
