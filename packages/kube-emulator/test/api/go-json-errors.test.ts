import { expect } from 'chai';
import { goJsonSyntaxError, summarizeData } from '../../src/util/go-json.js';
import { call, startTestCluster, type TestCluster } from '../helpers/emulator.js';

const b64 = (text: string): string => Buffer.from(text).toString('base64url');

describe("bodies and tokens that are not JSON, answered in Go's words as kube-apiserver does", function () {
  this.timeout(10_000);
  let cluster: TestCluster;
  const CONFIG_MAPS = '/api/v1/namespaces/default/configmaps';
  const CLUSTERS = '/apis/infrastructure.keymaster.dev/v1beta1/namespaces/default/awsclusters';
  const message = async (method: string, path: string, body?: string, contentType = 'application/json') => {
    const answer = await call(cluster.emulator, method, path, body, { 'Content-Type': contentType });
    return { ...(answer.body as { message?: string; reason?: string }), status: answer.status };
  };

  before(async () => {
    cluster = await startTestCluster();
  });
  after(() => cluster.stop());

  it("reports encoding/json's syntax errors", () => {
    expect(goJsonSyntaxError('{"a": 1}')).to.equal(undefined);
    expect(goJsonSyntaxError('[1, {"b": [true, false, null, -0.5e+3]}]')).to.equal(undefined);
    expect(goJsonSyntaxError('{"apiVersion": "v1", "kind": ')).to.equal('unexpected end of JSON input');
    expect(goJsonSyntaxError('')).to.equal('unexpected end of JSON input');
    expect(goJsonSyntaxError('{not json}')).to.equal(
      "invalid character 'n' looking for beginning of object key string",
    );
    expect(goJsonSyntaxError('not-a-token')).to.equal("invalid character 'o' in literal null (expecting 'u')");
    // At the end Go feeds the scanner a space: a cut literal fails on it.
    expect(goJsonSyntaxError('tru')).to.equal("invalid character ' ' in literal true (expecting 'e')");
    expect(goJsonSyntaxError('{"a": 1} x')).to.equal("invalid character 'x' after top-level value");
    expect(goJsonSyntaxError('{"a" 1}')).to.equal("invalid character '1' after object key");
    expect(goJsonSyntaxError('{"a": 1 "b"}')).to.equal(`invalid character '"' after object key:value pair`);
    expect(goJsonSyntaxError('[1 2]')).to.equal("invalid character '2' after array element");
    expect(goJsonSyntaxError('{"a": [1,]}')).to.equal("invalid character ']' looking for beginning of value");
    expect(goJsonSyntaxError('"\\x"')).to.equal("invalid character 'x' in string escape code");
    expect(goJsonSyntaxError('1.e')).to.equal("invalid character 'e' after decimal point in numeric literal");
    expect(goJsonSyntaxError("'a'")).to.equal("invalid character '\\'' looking for beginning of value");
    expect(goJsonSyntaxError('\u0001')).to.equal("invalid character '\\x01' looking for beginning of value");
    expect(summarizeData(Buffer.from('[1, 2]'))).to.equal('5b312c20325d');
    expect(summarizeData(Buffer.from(`{"metadata": {"name": "x"}} trailing`))).to.equal(
      '{"metadata": {"name": "x"}} tr ...',
    );
    expect(summarizeData(Buffer.alloc(0))).to.equal('<empty>');
  });

  it('answers a create or update whose kind cannot be read with the serializer’s 400', async () => {
    expect(await message('POST', CONFIG_MAPS, '{"apiVersion": "v1", "kind": ')).to.include({
      status: 400,
      reason: 'BadRequest',
      message:
        'the object provided is unrecognized (must be of type ConfigMap): couldn\'t get version/kind; json parse error: unexpected end of JSON input ({"apiVersion": "v1", "kind": )',
    });
    expect((await message('POST', CLUSTERS, '[1, 2]')).message).to.equal(
      'the object provided is unrecognized (must be of type AWSCluster): couldn\'t get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" } (5b312c20325d)',
    );
    expect((await message('POST', CLUSTERS, '{"apiVersion": 1}')).message).to.equal(
      'the object provided is unrecognized (must be of type AWSCluster): couldn\'t get version/kind; json parse error: json: cannot unmarshal number into Go struct field .apiVersion of type string ({"apiVersion": 1})',
    );
    expect((await message('POST', CONFIG_MAPS, '')).message).to.match(/unexpected end of JSON input \(<empty>\)$/);
    // null decodes as an empty object.
    expect(await message('POST', CONFIG_MAPS, 'null')).to.include({ status: 422, reason: 'Invalid' });
    await call(cluster.emulator, 'POST', CONFIG_MAPS, { metadata: { name: 'kept' } });
    expect((await message('PUT', `${CONFIG_MAPS}/kept`, '{"metadata": {')).message).to.match(
      /^the object provided is unrecognized \(must be of type ConfigMap\): couldn't get version\/kind; json parse error: unexpected end of JSON input/,
    );
  });

  it('answers a DELETE whose options are not JSON with a 400 (a 500 before 1.35), and deletes nothing', async () => {
    await call(cluster.emulator, 'POST', CONFIG_MAPS, { metadata: { name: 'undeleted' } });
    const broken = await call(cluster.emulator, 'DELETE', `${CONFIG_MAPS}/undeleted`, '{"propagationPolicy": ');
    expect(broken).to.include({ status: 400 });
    expect(broken.body).to.deep.equal({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: "couldn't get version/kind; json parse error: unexpected end of JSON input",
      reason: 'BadRequest',
      code: 400,
    });
    expect((await message('DELETE', `${CONFIG_MAPS}/undeleted`, '[1]')).status).to.equal(400);
    expect((await call(cluster.emulator, 'GET', `${CONFIG_MAPS}/undeleted`)).status).to.equal(200);
  });

  it('answers patches that are not JSON as kube-apiserver 1.37 does, and JSON of the wrong shape as each patch type does', async () => {
    await call(cluster.emulator, 'POST', CONFIG_MAPS, { metadata: { name: 'patched' }, data: { a: '1' } });
    const patch = (type: string, body: string) =>
      message('PATCH', `${CONFIG_MAPS}/patched`, body, `application/${type}+json`);
    // Checked to be JSON first, whatever the type (1.37 on; earlier, each type's decoder said why).
    for (const [type, body] of [
      ['merge-patch', '{not json'],
      ['json-patch', '[{"op": "add"'],
      ['strategic-merge-patch', '{"data": tru}'],
      ['merge-patch', ''],
    ]) {
      expect(await patch(type!, body!), `${type} ${body}`).to.include({ status: 400, message: 'invalid JSON patch' });
    }
    // The strategic merge patch's errors are Go's alone.
    expect((await patch('strategic-merge-patch', '"text"')).message).to.equal(
      'json: cannot unmarshal string into Go value of type map[string]interface {}',
    );
    expect(await patch('merge-patch', 'null')).to.include({ status: 400, message: 'Invalid JSON Patch' });
    // null is no operations, no change.
    expect((await patch('json-patch', 'null')).status).to.equal(200);
    expect((await patch('strategic-merge-patch', 'null')).status).to.equal(200);
  });

  it('decodes continue tokens as the etcd3 store does, with its errors', async () => {
    const list = async (token: string) =>
      (await message('GET', `${CONFIG_MAPS}?limit=1&continue=${token}`)).message ?? 'ok';
    const invalid = 'invalid continue token: continue key is not valid';
    expect(await list('a$b')).to.equal(`${invalid}: illegal base64 data at input byte 1`);
    expect(await list(`${b64('{"v":"x"}')}=`)).to.equal(`${invalid}: illegal base64 data at input byte 12`);
    expect(await list('bm90LWEtdG9rZW4')).to.equal(`${invalid}: invalid character 'o' in literal null (expecting 'u')`);
    expect(await list(b64('{"v":"other/v9","rv":5,"start":"a"}'))).to.equal(
      `${invalid}: server does not recognize this encoded version other/v9`,
    );
    expect(await list(b64('{"v":"meta.k8s.io/v1","rv":0,"start":"a"}'))).to.equal(
      `${invalid}: incorrect encoded start resourceVersion (version meta.k8s.io/v1)`,
    );
    expect(await list(b64('{"v":"meta.k8s.io/v1","rv":5,"start":""}'))).to.equal(
      `${invalid}: encoded start key empty (version meta.k8s.io/v1)`,
    );
    expect(await list(b64('{"v":"meta.k8s.io/v1","rv":5,"start":"../../x"}'))).to.equal(`${invalid}: ../../x`);
    expect(await list(b64('{"v":"meta.k8s.io/v1","rv":"5","start":"a"}'))).to.equal(
      `${invalid}: json: cannot unmarshal string into Go struct field continueToken.rv of type int64`,
    );
    // The emulator's own tokens have kube-apiserver's shape and page on.
    for (const name of ['p1', 'p2']) await call(cluster.emulator, 'POST', CONFIG_MAPS, { metadata: { name } });
    const first = (await call(cluster.emulator, 'GET', `${CONFIG_MAPS}?limit=1`)).body as {
      metadata: { continue: string; resourceVersion: string };
    };
    expect(JSON.parse(Buffer.from(first.metadata.continue, 'base64url').toString())).to.include({
      v: 'meta.k8s.io/v1',
      rv: Number(first.metadata.resourceVersion),
    });
    expect(await list(first.metadata.continue)).to.equal('ok');
  });

  it('refuses fields named twice under fieldValidation=Strict, and warns of them otherwise', async () => {
    const strict = await message(
      'POST',
      `${CONFIG_MAPS}?fieldValidation=Strict`,
      '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dup"},"data":{"a":"1"},"data":{"b":"2"}}',
    );
    expect(strict).to.deep.include({
      status: 400,
      message:
        'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: duplicate field "data"',
    });
    const warned = await call(
      cluster.emulator,
      'POST',
      CONFIG_MAPS,
      '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dup2"},"data":{"a":"1","a":"2"}}',
    );
    expect(warned.status).to.equal(201);
    expect(warned.headers.get('warning')).to.include('duplicate field \\"data.a\\"');
  });
});
