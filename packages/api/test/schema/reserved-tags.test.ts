import { expect } from 'chai';
import { API_VERSION, compilePattern, formatCause, REGION, validateObject } from '../../src/index.js';

// The input a user tripped on (issue 17): accepted, then silently ignored or failing at AWS.

const cluster = (spec: Record<string, unknown>) => ({
  apiVersion: API_VERSION,
  kind: 'AWSCluster',
  metadata: { name: 'prod-1', namespace: 'tenant-a' },
  spec: { region: 'us-west-2', ...spec },
});
const role = (key: string) => ({
  apiVersion: API_VERSION,
  kind: 'AWSClusterRoleIdentity',
  metadata: { name: 'tenant-b' },
  spec: { roleARN: 'arn:aws:iam::333333333333:role/tenant-b-admin', resourceTags: [{ key, value: 'v' }] },
});
const policy = (key: string) => ({
  apiVersion: API_VERSION,
  kind: 'AWSTagPolicy',
  metadata: { name: 'default' },
  spec: { resourceTags: [{ key, value: 'v' }] },
});
const messages = (object: unknown) => validateObject(object).map(formatCause);

const DOMAIN_MESSAGE =
  'tag keys under kubernetes.io/, sigs.k8s.io/, openshift.io/, keymaster.dev/ (and their subdomains, in any case) are reserved for the platform: ownership tags such as kubernetes.io/cluster/<name> are set by the tools that create the resources, and Keymaster never writes them; choose a key under your own domain, e.g. example.com/team';
const NAME_MESSAGE = 'the tag keys "Name" (in any case) are reserved: the tools that create the resources set them';

describe('reserved tag keys are refused by the CRDs', () => {
  const reserved = [
    'kubernetes.io/cluster/x',
    'sigs.k8s.io/cluster-api-provider-aws/cluster/x',
    'Kubernetes.IO/role',
    'node.kubernetes.io/foo',
    'openshift.io/x',
    'keymaster.dev/claim',
    'kubernetes.io',
  ];

  it('in additionalTags, a map: every reserved domain, in any case, with subdomains', () => {
    for (const key of reserved)
      expect(messages(cluster({ additionalTags: { [key]: 'owned' } })), key).to.deep.equal([
        `spec.additionalTags: Invalid value: "object": ${DOMAIN_MESSAGE}`,
      ]);
    for (const key of ['Name', 'NAME', 'name'])
      expect(messages(cluster({ additionalTags: { [key]: 'x' } })), key).to.deep.equal([
        `spec.additionalTags: Invalid value: "object": ${NAME_MESSAGE}`,
      ]);
  });

  it("in identities' and the tag policy's resourceTags", () => {
    expect(messages(role('kubernetes.io/cluster/x'))).to.deep.equal([
      `spec.resourceTags[0].key: Invalid value: "kubernetes.io/cluster/x": ${DOMAIN_MESSAGE}`,
    ]);
    expect(messages(policy('name'))).to.deep.equal([
      `spec.resourceTags[0].key: Invalid value: "name": ${NAME_MESSAGE}`,
    ]);
  });

  it('accepts keys that only look alike', () => {
    for (const key of [
      'example.com/kubernetes.io',
      'kubernetes.iox/a',
      'mykubernetes.io/a',
      'team/kubernetes.io/x',
      'Namespace',
      'name-of-app',
      'keymaster.device/x',
    ]) {
      expect(messages(cluster({ additionalTags: { [key]: 'v' } })), key).to.deep.equal([]);
      expect(messages(role(key)), key).to.deep.equal([]);
    }
  });
});

describe('spec.region is an AWS region name', () => {
  const region = compilePattern(REGION);

  it('accepts the shapes of every partition', () => {
    for (const name of [
      'us-east-1',
      'us-west-2',
      'eu-central-2',
      'ap-southeast-7',
      'ap-northeast-3',
      'sa-east-1',
      'ca-west-1',
      'me-central-1',
      'il-central-1',
      'mx-central-1',
      'af-south-1',
      'cn-north-1',
      'cn-northwest-1',
      'us-gov-west-1',
      'us-iso-east-1',
      'us-isob-east-1',
      'eu-isoe-west-1',
      'eusc-de-east-1',
    ]) {
      expect(region.test(name), name).to.equal(true);
      expect(messages(cluster({ region: name })), name).to.deep.equal([]);
    }
  });

  it('refuses what is no region: a number of two digits, a misspelt direction, an unknown prefix, an AZ', () => {
    for (const name of ['us-west-22', 'us-west-0', 'eu-wset-1', 'xx-east-1', 'us-east-1a', 'useast1', 'US-EAST-1'])
      expect(messages(cluster({ region: name })), name).to.deep.equal([
        `spec.region: Invalid value: "${name}": must match '${REGION}'`,
      ]);
  });
});
