import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import { startAwsEmulator, type AwsEmulator } from '@keymaster/aws-emulator';
import { writeServingCertificate } from '@keymaster/testenv';
import { MANAGEMENT, controllerUser } from './support/aws-world.js';
import { eventually } from './support/eventually.js';
import { awsCluster, namespace, roleIdentity, roleRef } from './support/objects.js';
import { RbacManagementCluster } from './support/rbac-management-cluster.js';
import { kubectl } from './support/kubectl.js';
import {
  freePort,
  namespaceSelfService,
  untilCaBundleInjected,
  webhookConfigurations,
  webhookManifests,
} from './support/webhooks.js';
import type { ControllerProcess } from './support/controller-process.js';

/**
 * Issue 13's admission webhooks, as a tenant user meets them: deploy/webhooks' configurations on an API
 * server that enforces RBAC and calls webhooks itself (the kube-emulator, or kube-apiserver with
 * KEYMASTER_E2E_BACKEND=real), the real `keymaster run` serving them as its ServiceAccount, and
 * kubectl (support/kubectl.ts) with each user's token.
 */

const TENANT = 'keymaster.dev/tenant';
const tenantRoleIdentity = roleIdentity('tenant-a', {
  roleARN: `arn:aws:iam::${MANAGEMENT}:role/tenant-a`,
  allowedNamespaces: { selector: { matchLabels: { [TENANT]: 'tenant-a' } } },
});
const yaml = (object: object) => JSON.stringify(object);

describe('admission webhooks, as tenants and ops meet them under RBAC', function () {
  let aws: AwsEmulator | undefined;
  let management: RbacManagementCluster;
  let started = false;
  let controller: ControllerProcess;
  let certDir: string;
  let args: string[];
  const as = async (user: 'tenant-a' | 'tenant-b' | 'ops', command: string[], stdin?: string) =>
    kubectl(
      management.dir,
      user === 'ops' ? management.opsKubeConfig() : management.server.kubeConfig({ token: `${user}-token` }),
      command,
      stdin,
    );

  before(async () => {
    aws = await startAwsEmulator({ world: { accounts: [{ id: MANAGEMENT, users: [controllerUser()] }] } });
    management = await RbacManagementCluster.start({
      tenants: [{ name: 'tenant-a' }, { name: 'tenant-b' }],
      objects: [
        namespace('tenant-a', { [TENANT]: 'tenant-a' }),
        namespace('tenant-b', { [TENANT]: 'tenant-b' }),
        tenantRoleIdentity,
      ],
    });
    started = true;
    const port = await freePort();
    // What a namespace self-service tool might grant: tenant-a may edit its own Namespace object.
    const selfService = namespaceSelfService('tenant-a', ['namespaces']);
    await management.install([
      ...(await webhookManifests('ca-injector-rbac.yaml')),
      ...selfService,
      ...(await webhookConfigurations(port)),
    ]);
    certDir = join(management.dir, 'webhook-certs');
    await mkdir(certDir);
    await writeServingCertificate(certDir, 'keymaster-webhook-ca');
    // Nobody is privileged here (ops are in system:masters): every refusal applies to ops too.
    args = [
      `--webhook-port=${port}`,
      `--webhook-cert-dir=${certDir}`,
      '--webhook-inject-ca-bundle',
      '--admission-privileged-groups=platform-team',
    ];
    controller = await management.startController({ awsUrl: aws.url, args });
    await untilCaBundleInjected(management.dir, management.opsKubeConfig());
  });
  after(async () => {
    if (started) await management.stop();
    await aws?.stop();
  });

  it("refuses a tenant's AWSCluster whose identity does not allow its namespace, with the condition's message", async () => {
    const refused = await as(
      'tenant-b',
      ['apply', '-f', '-'],
      yaml(awsCluster('tenant-b', 'steal', { region: 'us-west-2', identityRef: roleRef('tenant-a') })),
    );
    expect(refused.code).to.not.equal(0);
    expect(refused.stderr).to.include(
      'admission webhook "awsclusters.keymaster.dev" denied the request: namespace "tenant-b" may not use ' +
        'AWSClusterRoleIdentity/tenant-a. Add "tenant-b" to spec.allowedNamespaces of AWSClusterRoleIdentity/tenant-a ' +
        '(list or selector), or use another identity. Every link of a chain must allow the namespace.',
    );
    const accepted = await as(
      'tenant-a',
      ['apply', '-f', '-'],
      yaml(awsCluster('tenant-a', 'prod', { region: 'us-west-2', identityRef: roleRef('tenant-a') })),
    );
    expect(accepted.stdout).to.include('awscluster.infrastructure.keymaster.dev/prod created');
    // Its chain ends at the controller identity, not created yet: a warning, not a refusal.
    expect(accepted.stderr).to.include('Warning: AWSClusterControllerIdentity/default not found');
  });

  it('refuses a tag key outside the characters AWS allows, which the CRD alone lets through', async () => {
    const refused = await as(
      'tenant-a',
      ['apply', '-f', '-'],
      yaml(awsCluster('tenant-a', 'emoji', { region: 'us-west-2', additionalTags: { 'team🔥': 'a' } })),
    );
    expect(refused.stderr).to.match(
      /admission webhook "awsclusters.keymaster.dev" denied the request: .*team🔥.*AWS allows letters, digits, spaces/,
    );
  });

  it('a tenant allowed to edit its namespace cannot relabel it, nor remove its tenant', async () => {
    const relabel = await as('tenant-a', ['label', 'namespace', 'tenant-a', `${TENANT}=tenant-b`, '--overwrite']);
    expect(relabel.stderr).to.include(
      'admission webhook "tenant.namespaces.keymaster.dev" denied the request: tenant-a-dev may not change the label ' +
        `${TENANT} from tenant-a to tenant-b on namespace tenant-a`,
    );
    const remove = await as('tenant-a', ['label', 'namespace', 'tenant-a', `${TENANT}-`]);
    expect(remove.stderr).to.include(`tenant-a-dev may not remove the label ${TENANT} on namespace tenant-a`);
    // Its other labels are its own to edit.
    expect((await as('tenant-a', ['label', 'namespace', 'tenant-a', 'team=payments'])).code).to.equal(0);
  });

  it('refuses deleting an identity that clusters use, naming them', async () => {
    await eventually(async () => {
      const refused = await as('ops', ['delete', 'awsclusterroleidentity', 'tenant-a', '--wait=false']);
      expect(refused.stderr).to.include(
        'admission webhook "identities.keymaster.dev" denied the request: AWSClusterRoleIdentity/tenant-a is used by 1 AWSCluster: tenant-a/prod.',
      );
    });
  });

  it('warns ops applying a role identity whose externalID is in its spec, and how to move it; refuses both fields', async () => {
    const externalID = '3e1d7c55-admission-e2e-only';
    const plain = await as(
      'ops',
      ['apply', '-f', '-'],
      yaml(roleIdentity('plain-id', { roleARN: `arn:aws:iam::${MANAGEMENT}:role/plain`, externalID })),
    );
    expect(plain.stdout).to.include('awsclusterroleidentity.infrastructure.keymaster.dev/plain-id created');
    expect(plain.stderr).to.include(
      'Warning: AWSClusterRoleIdentity/plain-id: spec.externalID is readable by every tenant allowed to read identities',
    );
    expect(plain.stderr).to.include('set spec.externalIDSecretRef and remove spec.externalID');
    expect(plain.stderr).not.to.include(externalID);
    const both = await as(
      'ops',
      ['apply', '-f', '-'],
      yaml(
        roleIdentity('both-ids', {
          roleARN: `arn:aws:iam::${MANAGEMENT}:role/plain`,
          externalID,
          externalIDSecretRef: { name: 'plain-id-external-id', key: 'externalID' },
        }),
      ),
    );
    expect(both.code).to.not.equal(0);
    expect(both.stderr).to.include('set externalIDSecretRef or externalID, not both');
  });

  it("webhooks down (controller stopped) do not block the platform team's recovery", async () => {
    await controller.stop();
    // Fail-open webhooks: AWSClusters and identities can still be fixed; the controller checks them when back.
    const patched = await as('ops', [
      'patch',
      'awscluster',
      '-n',
      'tenant-a',
      'prod',
      '--type',
      'merge',
      '-p',
      '{"spec":{"additionalTags":{"fixed":"yes"}}}',
    ]);
    expect(patched.code, patched.stderr).to.equal(0);
    const identity = await as('ops', [
      'patch',
      'awsclusterroleidentity',
      'tenant-a',
      '--type',
      'merge',
      '-p',
      '{"spec":{"resourceTags":[{"key":"team","value":"a"}]}}',
    ]);
    expect(identity.code, identity.stderr).to.equal(0);
    // The tenancy label fails closed; removing the webhook configuration (never sent to webhooks) unblocks it.
    const relabel = await as('ops', ['label', 'namespace', 'tenant-b', `${TENANT}=tenant-c`, '--overwrite']);
    expect(relabel.stderr).to.include('failed calling webhook "tenant.namespaces.keymaster.dev"');
    expect((await as('ops', ['delete', 'validatingwebhookconfiguration', 'keymaster'])).code).to.equal(0);
    expect((await as('ops', ['label', 'namespace', 'tenant-b', `${TENANT}=tenant-c`, '--overwrite'])).code).to.equal(0);
    controller = await management.startController({ awsUrl: aws!.url, args });
  });
});
