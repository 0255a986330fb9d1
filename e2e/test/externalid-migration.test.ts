import { expect } from 'chai';
import type { AWSClusterRoleIdentity } from '@keymaster/api';
import type { V1Secret } from '@kubernetes/client-node';
import {
  HUB_ROLE,
  MANAGEMENT,
  clusterResources,
  controllerUser,
  hubRole,
  roleArn,
  TAGGER,
} from './support/aws-world.js';
import { documentedCommands, runDocumented } from './support/documented-commands.js';
import { eventually } from './support/eventually.js';
import { untilDiscovered } from './support/isolation-facts.js';
import { condition } from './support/kube.js';
import {
  CONTROLLER_NAMESPACE,
  awsCluster,
  controllerIdentity,
  namespace,
  roleIdentity,
  roleRef,
} from './support/objects.js';
import { startTenancy, stopTenancies, type Tenancy } from './support/tenancy.js';

const DOC = 'docs/operations.md';
const REGION = 'us-west-2';
const ACCOUNT_B = '333333333333';
const ROLE_B = roleArn(ACCOUNT_B, 'tenant-b-admin');
/** The value an older release kept in tenant B's spec, and the one infra added to the trust policy to rotate it. */
const OLD_EXTERNAL_ID = '7a5b816a-7743-4377-a382-2d695bf1f172';
const NEW_EXTERNAL_ID = '0d9e4c1b-6f2a-4b8e-9c3d-5a7f1e2b8c40';
/** Sessions of tenant B's role, as Keymaster names them (`keymaster-<identity>`). */
const TENANT_B_SESSIONS = `arn:aws:sts::${ACCOUNT_B}:assumed-role/tenant-b-admin/keymaster-tenant-b`;

/**
 * docs/operations.md's "Moving externalIDs to Secrets", word for word: kubectl 1.33 as ops against the
 * real `keymaster run` (its ServiceAccount under deploy/rbac), on the kube-emulator or kube-apiserver.
 */
describe("docs/operations.md's move of externalIDs to Secrets, run as written", function () {
  const resources = clusterResources(ACCOUNT_B, REGION, 'analytics', 2);
  let tenancy: Tenancy;
  let ops: string;

  const identity = (name: string) => tenancy.ops.identity<AWSClusterRoleIdentity>('AWSClusterRoleIdentity', name);
  const confidential = async (name: string) =>
    (await identity(name)).status?.conditions?.find(({ type }) => type === 'ExternalIDConfidential');
  /** AssumeRole of tenant B's role the emulator saw succeed, with the ExternalId each sent. */
  const assumedB = () =>
    tenancy.aws
      .calls(
        ({ action, outcome, detail }) =>
          action === 'sts:AssumeRole' && outcome === 'success' && detail?.['roleArn'] === ROLE_B,
      )
      .map(({ detail }) => detail?.['externalId']);
  async function run(marker: string, env: Record<string, string> = {}) {
    const result = await runDocumented(await documentedCommands(DOC, marker), ops, env);
    expect(result, `the ${marker} commands`).to.include({ code: 0 });
    return result.stdout;
  }

  before(async function () {
    tenancy = await startTenancy({
      world: {
        accounts: [
          { id: MANAGEMENT, users: [controllerUser()], roles: [hubRole()] },
          {
            id: ACCOUNT_B,
            // Both values, as infra sets the trust policy during a rotation.
            roles: [
              {
                name: 'tenant-b-admin',
                trust: [OLD_EXTERNAL_ID, NEW_EXTERNAL_ID].map((externalId) => ({
                  principal: HUB_ROLE,
                  externalId,
                  actions: ['sts:AssumeRole', 'sts:TagSession'],
                })),
                allow: TAGGER,
              },
            ],
            resources,
          },
        ],
      },
      tenants: [{ name: 'tenant-b' }],
      objects: [
        namespace('tenant-b'),
        controllerIdentity({ list: ['tenant-b'] }),
        // As an older release stored them: the hub with no externalID, tenant B's role with it in its spec.
        roleIdentity('keymaster-hub', { roleARN: HUB_ROLE, allowedNamespaces: { list: ['tenant-b'] } }),
        roleIdentity('tenant-b', {
          roleARN: ROLE_B,
          externalID: OLD_EXTERNAL_ID,
          sourceIdentityRef: roleRef('keymaster-hub'),
          allowedNamespaces: { list: ['tenant-b'] },
        }),
        awsCluster('tenant-b', 'analytics', { region: REGION, identityRef: roleRef('tenant-b') }),
      ],
      syncPeriod: '2s',
    });
    ops = tenancy.management.opsKubeConfig();
    await tenancy.ops.untilReady(1);
  });
  after(stopTenancies);

  it('finds the identities that keep their externalID in the spec', async function () {
    await eventually(async () =>
      expect(await confidential('tenant-b')).to.include({ status: 'False', reason: 'ExternalIDInSpec' }),
    );
    const found = await run('externalid-find');
    expect(found).to.match(/^tenant-b\s+ExternalIDInSpec$/m);
    expect(found).to.match(/^keymaster-hub\s+NoExternalID$/m);
  });

  it('moves each externalID into a Secret of keymaster-system: the same value, no new session, the cluster still Ready', async function () {
    const sessions = assumedB();
    expect(sessions, 'tenant B assumed with the externalID of its spec').to.deep.equal([OLD_EXTERNAL_ID]);
    await run('externalid-migration');

    const secret = await tenancy.ops.read<V1Secret>({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'tenant-b-external-id', namespace: CONTROLLER_NAMESPACE },
    });
    expect(Buffer.from(secret.data?.['externalID'] ?? '', 'base64').toString()).to.equal(OLD_EXTERNAL_ID);
    const moved = await identity('tenant-b');
    expect(moved.spec.externalID).to.equal(undefined);
    expect(moved.spec.externalIDSecretRef).to.deep.equal({ name: 'tenant-b-external-id', key: 'externalID' });
    expect((await identity('keymaster-hub')).spec, 'an identity without externalID untouched').not.to.have.any.keys(
      'externalIDSecretRef',
    );
    await eventually(async () =>
      expect(await confidential('tenant-b')).to.include({ status: 'True', reason: 'ExternalIDInSecret' }),
    );
    // Two more discoveries by tenant B's session: its cluster was reconciled again with the moved identity.
    const discovered = tenancy.aws.emulator.calls.summary().byCaller[TENANT_B_SESSIONS]?.['tag:GetResources'] ?? 0;
    await untilDiscovered(tenancy.aws, TENANT_B_SESSIONS, discovered + 2);
    expect(condition(await tenancy.ops.cluster('tenant-b', 'analytics'), 'Ready')).to.include({ status: 'True' });
    expect(assumedB(), 'no new AssumeRole: the same value is the same session').to.deep.equal(sessions);

    // Run again, it finds nothing left to move.
    await run('externalid-migration');
    expect(await run('externalid-find')).not.to.match(/ExternalIDInSpec/);
  });

  it('rotates the externalID in its Secret: the role is assumed with the new value at once', async function () {
    await run('externalid-rotation', { NEW_EXTERNAL_ID });
    await eventually(() => expect(assumedB()).to.include(NEW_EXTERNAL_ID));
    await eventually(async () =>
      expect(condition(await tenancy.ops.cluster('tenant-b', 'analytics'), 'Ready')).to.include({ status: 'True' }),
    );
  });
});
