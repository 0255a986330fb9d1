import { API_VERSION } from '@keymaster/api';
import type { World } from '@keymaster/aws-emulator';
import { IdentityResolver, type IdentityObject, type IdentityStore } from '@keymaster/identity';
import { expect } from 'chai';
import { CLUSTER } from '../fixtures.js';
import { ACCOUNT, clusterInstances, FULL_ACCESS, REGIONS, taggingWorld } from '../support/aws-world.js';
import { EFFECTIVE, EFFECTIVE_VALUES, startHarness, type Harness } from '../support/harness.js';
import { reconcileTags } from '../../src/index.js';

const MANAGEMENT = '999999999999';
const CONTROLLER_KEYS = {
  accessKeyId: 'AKIAEXAMPLECONTROLLER',
  secretAccessKey: 'controller-secret-key-0000000000000000000',
};
const ROLE_ARN = `arn:aws:iam::${ACCOUNT}:role/tenant-b-tagger`;

/** The tenant's resources and a role there, assumed by the controller from the management account. */
function world(): World {
  const tenant = taggingWorld(REGIONS.flatMap((region) => clusterInstances(region, 30))).accounts[0]!;
  return {
    accounts: [
      {
        id: MANAGEMENT,
        users: [{ name: 'keymaster-controller', accessKeys: [CONTROLLER_KEYS], allow: ['sts:AssumeRole'] }],
      },
      {
        ...tenant,
        roles: [
          {
            name: 'tenant-b-tagger',
            trust: [{ principal: `arn:aws:iam::${MANAGEMENT}:user/keymaster-controller` }],
            allow: [...FULL_ACCESS, 'sts:GetCallerIdentity'],
          },
        ],
      },
    ],
  };
}

const identity = (kind: IdentityObject['kind'], name: string, spec: Record<string, unknown>) =>
  ({ apiVersion: API_VERSION, kind, metadata: { name, uid: `uid-${name}` }, spec }) as IdentityObject;

/** The controller identity and the cluster's role identity, both open to every namespace. */
const identities = [
  identity('AWSClusterControllerIdentity', 'default', { allowedNamespaces: {} }),
  identity('AWSClusterRoleIdentity', 'tenant-b', { roleARN: ROLE_ARN, allowedNamespaces: {} }),
];
const store: IdentityStore = {
  getIdentity: (kind, name) =>
    Promise.resolve(identities.find((object) => object.kind === kind && object.metadata.name === name)),
  listIdentities: () => Promise.resolve(identities),
  getSecret: () => Promise.resolve(undefined),
  getNamespace: (name) => Promise.resolve({ name, labels: {} }),
};

describe('reconcileTags with a session from IdentityResolver', function () {
  this.timeout(30_000);
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness(world());
  });
  afterEach(() => h.stop());

  it("tags with the cluster's own clients: every tagging call signed by the cluster's role session", async () => {
    const resolver = new IdentityResolver({
      store,
      controllerNamespace: 'keymaster-system',
      controllerCredentials: () => Promise.resolve(CONTROLLER_KEYS),
      aws: { endpoint: h.aws.url, stsRegion: 'us-east-1' },
      clock: () => h.aws.clock.nowMs(),
    });
    const session = await resolver.resolve({
      namespace: 'tenant-b',
      identityRef: { kind: 'AWSClusterRoleIdentity', name: 'tenant-b' },
      region: REGIONS[0],
    });
    const result = await reconcileTags({
      session,
      clusterName: CLUSTER,
      regions: REGIONS,
      effective: EFFECTIVE,
      limiters: h.limiters,
      clock: h.clock,
    });

    expect(result.synced).to.equal(true);
    for (const tags of h.resources().values()) expect(tags).to.include(EFFECTIVE_VALUES);
    const byCaller = h.aws.calls.summary().byCaller;
    const taggers = Object.keys(byCaller).filter((caller) =>
      Object.keys(byCaller[caller]!).some((a) => a.startsWith('tag:') || a.startsWith('ec2:')),
    );
    expect(taggers).to.deep.equal([session.principalArn]);
    expect(session.principalArn).to.match(/^arn:aws:sts::111111111111:assumed-role\/tenant-b-tagger\//);
    // EC2's instances are written with EC2's own CreateTags: one call per region for its 30.
    expect(byCaller[session.principalArn]!['ec2:CreateTags']).to.equal(3);
    expect(h.limiters.stats().map(({ accountId, region }) => `${accountId}/${region}`)).to.include.members(
      REGIONS.map((region) => `${ACCOUNT}/${region}`),
    );
  });
});
