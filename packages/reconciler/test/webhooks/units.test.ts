import { expect } from 'chai';
import { parseRunFlags } from '../../src/cli/flags.js';
import { defaultAWSCluster } from '../../src/webhooks/awscluster.js';
import type { AdmissionRequest } from '../../src/webhooks/review.js';

const request = (object: unknown, operation: AdmissionRequest['operation'] = 'CREATE'): AdmissionRequest => ({
  uid: 'u',
  kind: { group: 'infrastructure.keymaster.dev', version: 'v1beta1', kind: 'AWSCluster' },
  operation,
  userInfo: { username: 'alice' },
  object,
});

describe('webhook flags of keymaster run', () => {
  it('leaves the webhooks off by default, with controller-runtime names and defaults', () => {
    const flags = parseRunFlags([]);
    expect(flags.webhookPort).to.equal(undefined);
    expect(flags.webhookCertDir).to.equal('/tmp/k8s-webhook-server/serving-certs');
    expect(flags.privileged).to.deep.equal({ users: [], groups: ['system:masters'] });
    expect(flags.tenancy.label).to.equal('keymaster.dev/tenant');
  });

  it('reads privileged principals, the tenancy label and the group mapping', () => {
    const flags = parseRunFlags([
      '--webhook-port=9443',
      '--admission-privileged-users=alice, bob',
      '--admission-privileged-groups=platform-team',
      '--tenant-label=example.com/org',
      '--tenant-groups=a-devs=tenant-a,b-devs=tenant-b',
    ]);
    expect(flags.webhookPort).to.equal(9443);
    expect(flags.privileged).to.deep.equal({ users: ['alice', 'bob'], groups: ['platform-team'] });
    expect(flags.tenancy).to.deep.equal({
      label: 'example.com/org',
      groupTenants: new Map([
        ['a-devs', 'tenant-a'],
        ['b-devs', 'tenant-b'],
      ]),
    });
  });

  it('names the flag, the problem and the fix', () => {
    expect(() => parseRunFlags(['--webhook-port=https'])).to.throw('--webhook-port="https": is not a port');
    expect(() => parseRunFlags(['--tenant-label=not a key'])).to.throw(
      '--tenant-label="not a key": is not a label key',
    );
    expect(() => parseRunFlags(['--tenant-groups=a-devs'])).to.throw(
      '--tenant-groups="a-devs": "a-devs" is not group=tenant with a tenant that is a label value',
    );
  });
});

describe('AWSCluster defaulting', () => {
  it('sets identityRef to the controller identity "default" when absent, as CAPA does', () => {
    expect(defaultAWSCluster(request({ spec: { region: 'eu-west-1' } })).patch).to.deep.equal([
      { op: 'add', path: '/spec/identityRef', value: { kind: 'AWSClusterControllerIdentity', name: 'default' } },
    ]);
  });

  it('keeps an identityRef given, and never patches updates', () => {
    const named = { spec: { region: 'eu-west-1', identityRef: { kind: 'AWSClusterRoleIdentity', name: 'a' } } };
    expect(defaultAWSCluster(request(named)).patch).to.equal(undefined);
    expect(defaultAWSCluster(request({ spec: { region: 'eu-west-1' } }, 'UPDATE')).patch).to.equal(undefined);
  });
});
