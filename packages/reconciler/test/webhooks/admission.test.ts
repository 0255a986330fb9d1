import { expect } from 'chai';
import { API_VERSION } from '@keymaster/api';
import { AdmissionregistrationV1Api } from '@kubernetes/client-node';
import { eventually } from '../integration/harness.js';
import { writeServingCertificate } from '@keymaster/testenv';
import { startAdmissionPlatform, type AdmissionPlatform } from './harness.js';

const GROUP_PATH = '/apis/infrastructure.keymaster.dev/v1beta1';
const namespace = (name: string, labels: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name, labels },
});
const cluster = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: API_VERSION,
  kind: 'AWSCluster',
  metadata: { name },
  spec: { region: 'us-west-2', ...spec },
});
const role = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: API_VERSION,
  kind: 'AWSClusterRoleIdentity',
  metadata: { name },
  spec: { roleARN: `arn:aws:iam::222222222222:role/${name}`, ...spec },
});
const ROLE_REF = (name: string) => ({ kind: 'AWSClusterRoleIdentity', name });
const MERGE = 'application/merge-patch+json';
const VENDS_TO_ALL = { spec: { credentialVending: { allowedNamespaces: {} } } };

describe('admission webhooks of keymaster run (kube-emulator)', function () {
  this.timeout(60_000);
  let platform: AdmissionPlatform;
  let started = false;

  before(async () => {
    platform = await startAdmissionPlatform([
      namespace('tenant-a', { 'keymaster.dev/tenant': 'tenant-a' }),
      namespace('tenant-b', { 'keymaster.dev/tenant': 'tenant-b' }),
      role('tenant-a', { allowedNamespaces: { selector: { matchLabels: { 'keymaster.dev/tenant': 'tenant-a' } } } }),
    ]);
    started = true;
    // The controller injected its CA: every webhook is trusted from now on.
    await eventually(async () => {
      const api = platform.as('admin').kubeConfig.makeApiClient(AdmissionregistrationV1Api);
      const configuration = await api.readValidatingWebhookConfiguration({ name: 'keymaster' });
      expect(configuration.webhooks?.every((webhook) => webhook.clientConfig.caBundle)).to.equal(true);
    });
  });
  after(async () => {
    if (started) await platform.stop();
  });

  const clusters = (ns: string) => `${GROUP_PATH}/namespaces/${ns}/awsclusters`;

  it("refuses an AWSCluster whose identity does not allow its namespace, with the condition's message", async () => {
    const refused = await platform.send(
      'tenantB',
      'POST',
      clusters('tenant-b'),
      cluster('steal', { identityRef: ROLE_REF('tenant-a') }),
    );
    expect(refused.status).to.equal(403);
    expect(refused.body.message).to.equal(
      'admission webhook "awsclusters.keymaster.dev" denied the request: namespace "tenant-b" may not use ' +
        'AWSClusterRoleIdentity/tenant-a. Add "tenant-b" to spec.allowedNamespaces of AWSClusterRoleIdentity/tenant-a ' +
        '(list or selector), or use another identity. Every link of a chain must allow the namespace.',
    );
    const allowed = await platform.send(
      'tenantA',
      'POST',
      clusters('tenant-a'),
      cluster('prod', { identityRef: ROLE_REF('tenant-a') }),
    );
    expect(allowed.status).to.equal(201);
  });

  it('accepts an AWSCluster naming a missing identity, with a warning, so that apply -f dir/ works in any order', async () => {
    const created = await platform.send(
      'tenantA',
      'POST',
      clusters('tenant-a'),
      cluster('early', { identityRef: ROLE_REF('later') }),
    );
    expect(created.status).to.equal(201);
    expect(created.warnings).to.deep.equal([
      'AWSClusterRoleIdentity/later not found (referenced by AWSClusters in namespace tenant-a). Create ' +
        'AWSClusterRoleIdentity/later, or point AWSClusters in namespace tenant-a at an identity that exists.',
    ]);
  });

  it("warns at creation of a clusterName in CAPA's EKS form naming another namespace, and accepts EKS names", async () => {
    const eksForm = (warnings: readonly string[]) => warnings.filter((warning) => warning.includes("CAPA's EKS name"));
    const created: Record<string, readonly string[]> = {};
    for (const [name, clusterName] of [
      ['squat', 'tenant-b_prod-EKS'],
      ['own', 'tenant-a_prod-EKS'],
      ['upper', 'Tenant-B_prod'],
    ]) {
      const response = await platform.send(
        'tenantA',
        'POST',
        clusters('tenant-a'),
        cluster(name!, { identityRef: ROLE_REF('tenant-a'), clusterName }),
      );
      expect(response.status, clusterName).to.equal(201);
      created[clusterName!] = eksForm(response.warnings);
      // Other tests count the clusters of this identity.
      expect((await platform.send('ops', 'DELETE', `${clusters('tenant-a')}/${name}`)).status).to.equal(200);
    }
    expect(created).to.deep.equal({
      'tenant-b_prod-EKS': [
        `spec.clusterName "tenant-b_prod-EKS" has the form of CAPA's EKS name of a cluster of namespace tenant-b, ` +
          "not tenant-a: if that EKS cluster is another tenant's, its AWSCluster owns the name and this one makes no " +
          "AWS write (ClusterNameClaimed). Name this cluster's own EKS cluster (AWSManagedControlPlane.spec.eksClusterName).",
      ],
      'tenant-a_prod-EKS': [],
      'Tenant-B_prod': [],
    });
  });

  it('refuses tag keys the CRD cannot refuse (outside its character classes), with the tag rule', async () => {
    const refused = await platform.send(
      'tenantA',
      'POST',
      clusters('tenant-a'),
      cluster('emoji', { additionalTags: { 'team🔥': 'a' } }),
    );
    expect(refused.status).to.equal(422);
    expect(refused.body.message).to.match(
      /^admission webhook "awsclusters.keymaster.dev" denied the request: .*team🔥.*AWS allows letters, digits, spaces and _ \. : \/ = \+ - @/,
    );
  });

  it("warns when the layers' keys, with the ownership tag, exceed AWS's 50 tags per resource (Keymaster adds none)", async () => {
    const tags = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, index) => [`k${index}`, 'v']));
    const fits = await platform.send(
      'tenantA',
      'POST',
      clusters('tenant-a'),
      cluster('fits', { additionalTags: tags(49) }),
    );
    expect(fits.warnings.filter((warning) => warning.includes('over AWS'))).to.deep.equal([]);
    const over = await platform.send(
      'tenantA',
      'POST',
      clusters('tenant-a'),
      cluster('over', { additionalTags: tags(50) }),
    );
    expect(over.status).to.equal(201);
    expect(over.warnings).to.include(
      "the tag layers give this cluster 50 keys; with the ownership tag that is over AWS's 50 tags per resource: " +
        'the keys beyond are withheld (TagLimit). Drop some additionalTags, or account or global tags.',
    );
  });

  it('privileged principals bypass the cross-object check, and the bypass is logged with the user', async () => {
    const created = await platform.send(
      'platform',
      'POST',
      clusters('tenant-b'),
      cluster('rescue', { identityRef: ROLE_REF('tenant-a') }),
    );
    expect(created.status).to.equal(201);
    expect(created.warnings.filter((warning) => warning.startsWith('allowed as a privileged principal'))).to.deep.equal(
      [
        'allowed as a privileged principal although namespace "tenant-b" may not use AWSClusterRoleIdentity/tenant-a. ' +
          'Add "tenant-b" to spec.allowedNamespaces of AWSClusterRoleIdentity/tenant-a (list or selector), or use ' +
          'another identity. Every link of a chain must allow the namespace.',
      ],
    );
    expect(platform.logs.some((line) => line.includes('bypassed') && line.includes('"user":"pat"'))).to.equal(true);
  });

  it('refuses deleting an identity that clusters use, naming them', async () => {
    await eventually(async () => {
      const refused = await platform.send('ops', 'DELETE', `${GROUP_PATH}/awsclusterroleidentities/tenant-a`);
      expect(refused.status).to.equal(409);
      expect(refused.body.message).to.match(
        /denied the request: AWSClusterRoleIdentity\/tenant-a is used by 2 AWSClusters: tenant-a\/prod, tenant-b\/rescue\. /,
      );
    });
  });

  it("refuses deleting a tenant's own AWSServiceAccountIdentity that its clusters use, naming its namespace's only", async () => {
    const own = (ns: string) => ({
      apiVersion: API_VERSION,
      kind: 'AWSServiceAccountIdentity',
      metadata: { name: 'own', namespace: ns },
      spec: { roleARN: 'arn:aws:iam::222222222222:role/own', serviceAccountName: 'keymaster' },
    });
    const owns = (ns: string) => `${GROUP_PATH}/namespaces/${ns}/awsserviceaccountidentities`;
    for (const ns of ['tenant-a', 'tenant-b']) {
      expect((await platform.send('ops', 'POST', owns(ns), own(ns))).status, ns).to.equal(201);
      const named = cluster(`uses-own-${ns}`, { identityRef: { kind: 'AWSServiceAccountIdentity', name: 'own' } });
      expect((await platform.send('ops', 'POST', clusters(ns), named)).status, ns).to.equal(201);
    }
    await eventually(async () => {
      const refused = await platform.send('ops', 'DELETE', `${owns('tenant-a')}/own`);
      expect(refused.status).to.equal(409);
      // Tenant B's cluster names an identity of that name: its own namespace's, not tenant A's.
      expect(refused.body.message).to.match(
        /denied the request: AWSServiceAccountIdentity\/tenant-a\/own is used by 1 AWSCluster: tenant-a\/uses-own-tenant-a\. /,
      );
    });
  });

  it('refuses an identity that would close a cycle, and tag keys AWS reserves', async () => {
    expect(
      (
        await platform.send(
          'ops',
          'POST',
          `${GROUP_PATH}/awsclusterroleidentities`,
          role('hop-1', { sourceIdentityRef: ROLE_REF('hop-2') }),
        )
      ).status,
    ).to.equal(201);
    const cycle = await platform.send(
      'ops',
      'POST',
      `${GROUP_PATH}/awsclusterroleidentities`,
      role('hop-2', { sourceIdentityRef: ROLE_REF('hop-1') }),
    );
    expect(cycle.status).to.equal(422);
    expect(cycle.body.message).to.include(
      'identity chain has a cycle: AWSClusterRoleIdentity/hop-2 -> AWSClusterRoleIdentity/hop-1 -> AWSClusterRoleIdentity/hop-2',
    );
    const reserved = await platform.send(
      'ops',
      'POST',
      `${GROUP_PATH}/awsclusterroleidentities`,
      role('tags', { resourceTags: [{ key: 'kubernetes.io/cluster/x', value: 'owned' }] }),
    );
    expect(reserved.status).to.equal(422);
  });

  it("refuses credentialVending that can never vend (a hub, a platform web identity), and warns when a vending identity becomes another's source", async () => {
    const roles = `${GROUP_PATH}/awsclusterroleidentities`;
    expect((await platform.send('ops', 'POST', roles, role('vend-hub', { allowedNamespaces: {} }))).status).to.equal(
      201,
    );
    const spoke = role('vend-spoke', {
      sourceIdentityRef: ROLE_REF('vend-hub'),
      allowedNamespaces: { list: ['tenant-a'] },
      credentialVending: { allowedNamespaces: { list: ['tenant-a'] } },
    });
    expect((await platform.send('ops', 'POST', roles, spoke)).status).to.equal(201);
    await eventually(async () => {
      const hub = await platform.send('ops', 'PATCH', `${roles}/vend-hub`, VENDS_TO_ALL, MERGE);
      expect(hub.status).to.equal(422);
      expect(hub.body.message).to.equal(
        'admission webhook "identities.keymaster.dev" denied the request: AWSClusterRoleIdentity/vend-hub is the ' +
          'sourceIdentityRef of AWSClusterRoleIdentity/vend-spoke: an identity that others are made from is never ' +
          'vended (its session may assume their roles). Remove spec.credentialVending, and vend the identities built on it instead',
      );
    });
    const platformWeb = await platform.send('ops', 'POST', `${GROUP_PATH}/awsclusterwebidentities`, {
      apiVersion: API_VERSION,
      kind: 'AWSClusterWebIdentity',
      metadata: { name: 'platform-web' },
      spec: {
        roleARN: 'arn:aws:iam::222222222222:role/platform',
        serviceAccount: { name: 'keymaster', namespace: 'Controller' },
        allowedNamespaces: {},
        ...VENDS_TO_ALL.spec,
      },
    });
    expect(platformWeb.status).to.equal(422);
    expect(platformWeb.body.message).to.include(
      "AWSClusterWebIdentity/platform-web takes its token in the controller's namespace (spec.serviceAccount.namespace: " +
        "Controller): its sessions are the platform's and are never vended, in any mode, whatever its credentialVending " +
        'says: remove spec.credentialVending',
    );
    // Building on a vending identity is allowed (a chain is built in some order), and says what it ends.
    const onwards = await eventually(async () => {
      const created = await platform.send(
        'ops',
        'POST',
        roles,
        role('vend-onwards', { sourceIdentityRef: ROLE_REF('vend-spoke') }),
      );
      expect(created.warnings.join()).to.include('vend-spoke has spec.credentialVending');
      return created;
    });
    expect(onwards.status).to.equal(201);
    expect(onwards.warnings).to.include(
      'AWSClusterRoleIdentity/vend-spoke has spec.credentialVending, but AWSClusterRoleIdentity/vend-onwards makes it a ' +
        'source: from now on its session is never vended, and the AWSCredentialsRequests that use it lose their ' +
        'credentials at their next reconcile. Remove credentialVending from AWSClusterRoleIdentity/vend-spoke, and vend ' +
        'AWSClusterRoleIdentity/vend-onwards (or another identity built on it) instead.',
    );
    expect((await platform.send('ops', 'DELETE', `${roles}/vend-onwards`)).status).to.equal(200);
  });

  it("refuses an AWSCredentialsRequest its identity does not vend to, with the condition's message; a missing identity is a warning", async () => {
    const requests = (ns: string) => `${GROUP_PATH}/namespaces/${ns}/awscredentialsrequests`;
    const ask = (user: 'tenantA' | 'tenantB', ns: string, name: string, identity: string) =>
      platform.send(user, 'POST', requests(ns), {
        apiVersion: API_VERSION,
        kind: 'AWSCredentialsRequest',
        metadata: { name },
        spec: {
          identityRef: ROLE_REF(identity),
          statements: [{ effect: 'Allow', actions: ['tag:GetResources'], resources: ['*'] }],
          secretRef: { name: `${name}-aws` },
        },
      });
    const denied = 'admission webhook "awscredentialsrequests.keymaster.dev" denied the request: ';
    // tenant-a may use its role for clusters; the role does not vend.
    const notEnabled = await ask('tenantA', 'tenant-a', 'plain', 'tenant-a');
    expect(notEnabled.status).to.equal(403);
    expect(notEnabled.body.message).to.equal(
      `${denied}AWSClusterRoleIdentity/tenant-a vends no credentials to workloads: its spec.credentialVending is not set. ` +
        'For namespace "tenant-a" to ask for its credentials, ops add it to spec.credentialVending.allowedNamespaces of ' +
        'AWSClusterRoleIdentity/tenant-a (credentialVending: {allowedNamespaces: {list: [tenant-a]}}, or a selector); ' +
        'or point spec.identityRef at an identity that vends to "tenant-a".',
    );
    const hub = await ask('tenantA', 'tenant-a', 'hub', 'vend-hub');
    expect(hub.status).to.equal(403);
    expect(hub.body.message).to.include(
      `${denied}AWSClusterRoleIdentity/vend-hub is the sourceIdentityRef of 1 other identity`,
    );
    const elsewhere = await ask('tenantB', 'tenant-b', 'borrowed', 'vend-spoke');
    expect(elsewhere.status).to.equal(403);
    expect(elsewhere.body.message)
      .to.include('namespace "tenant-b" may not use AWSClusterRoleIdentity/vend-spoke')
      .and.include('namespace "tenant-b" may not ask for credentials of AWSClusterRoleIdentity/vend-spoke');
    const early = await ask('tenantA', 'tenant-a', 'early', 'later');
    expect([early.status, early.warnings[0]]).to.deep.equal([
      201,
      'AWSClusterRoleIdentity/later not found (referenced by AWSCredentialsRequests in namespace tenant-a). Create ' +
        'AWSClusterRoleIdentity/later, or point AWSCredentialsRequests in namespace tenant-a at an identity that exists.',
    ]);
    // Served once the caches have seen vend-onwards go (it made vend-spoke a source).
    await eventually(async () => {
      const served = await ask('tenantA', 'tenant-a', 'reports', 'vend-spoke');
      expect(served.status, JSON.stringify(served.body)).to.equal(201);
    });
  });

  it("warns about a role's externalID kept in its spec, with how to move it, and refuses it beside externalIDSecretRef", async () => {
    const roles = `${GROUP_PATH}/awsclusterroleidentities`;
    const externalID = 'b0a8e6f2-9c3d-4e1f-tenant-a-id';
    // This platform has no controller identity: every chain here also warns that its root is missing.
    const warningsOf = ({ warnings }: { warnings: string[] }) =>
      warnings.filter((warning) => !warning.startsWith('AWSClusterControllerIdentity/default not found'));
    const plain = await platform.send('ops', 'POST', roles, role('plain-id', { externalID }));
    expect(plain.status).to.equal(201);
    expect(warningsOf(plain)).to.have.length(1);
    expect(plain.warnings[0]).to.match(
      /^AWSClusterRoleIdentity\/plain-id: spec\.externalID is readable by every tenant allowed to read identities .*set spec\.externalIDSecretRef and remove spec\.externalID/,
    );
    expect(plain.warnings.join()).not.to.include(externalID);

    const secretRef = { name: 'plain-id-external-id', key: 'externalID' };
    const both = await platform.send(
      'ops',
      'POST',
      roles,
      role('both-ids', { externalID, externalIDSecretRef: secretRef }),
    );
    expect(both.status).to.equal(422);
    expect(both.body.message).to.include('set externalIDSecretRef or externalID, not both');

    // Moved: the Secret first, then the identity names it instead (one merge patch), without a warning.
    const secrets = '/api/v1/namespaces/keymaster-system/secrets';
    const secret = { apiVersion: 'v1', kind: 'Secret', metadata: secretRef, stringData: { externalID } };
    expect(
      (await platform.send('admin', 'POST', secrets, { ...secret, metadata: { name: secretRef.name } })).status,
    ).to.equal(201);
    const moved = await platform.send(
      'ops',
      'PATCH',
      `${roles}/plain-id`,
      { spec: { externalID: null, externalIDSecretRef: secretRef } },
      'application/merge-patch+json',
    );
    expect(moved.status).to.equal(200);
    expect(warningsOf(moved)).to.deep.equal([]);

    // A Secret that is not there yet is a warning (apply -f dir/ in any order), named with the field.
    const early = await platform.send(
      'ops',
      'POST',
      roles,
      role('early-id', { externalIDSecretRef: { name: 'later-external-id', key: 'externalID' } }),
    );
    expect(early.status).to.equal(201);
    expect(warningsOf(early)).to.deep.equal([
      'Secret keymaster-system/later-external-id of AWSClusterRoleIdentity/early-id (spec.externalIDSecretRef) not found. ' +
        "Create the Secret keymaster-system/later-external-id holding the role's externalID (as its trust policy's " +
        'sts:ExternalId requires it: 2-1224 characters of letters, digits and _+=,.@:/-) under the key externalID ' +
        "(identities read Secrets in the controller's namespace only).",
    ]);
  });

  it('refuses global tags of the tag policy that AWS would refuse', async () => {
    const policy = {
      apiVersion: API_VERSION,
      kind: 'AWSTagPolicy',
      metadata: { name: 'default' },
      // Two keys IAM reads as one: the CRD's list map tells them apart, AWS does not.
      spec: {
        resourceTags: [
          { key: 'Team', value: 'a' },
          { key: 'team', value: 'b' },
        ],
      },
    };
    const refused = await platform.send('ops', 'POST', `${GROUP_PATH}/awstagpolicies`, policy);
    expect(refused.status).to.equal(422);
    expect(refused.body.message).to.match(
      /^admission webhook "awstagpolicies.keymaster.dev" denied the request: .*"team".*IAM reads as the same key/,
    );
  });

  it("refuses a selected policy's tags that AWS would refuse, naming its layer", async () => {
    const policy = {
      apiVersion: API_VERSION,
      kind: 'AWSTagPolicy',
      metadata: { name: 'prod' },
      spec: {
        clusterSelector: { matchLabels: { env: 'prod' } },
        resourceTags: [
          { key: 'Team', value: 'a' },
          { key: 'team', value: 'b' },
        ],
      },
    };
    const refused = await platform.send('ops', 'POST', `${GROUP_PATH}/awstagpolicies`, policy);
    expect(refused.status).to.equal(422);
    expect(refused.body.message).to.match(/denied the request: Selected layer, AWSTagPolicy\/prod, key "team"/);
  });

  it('a tenant cannot set, change or remove the tenancy label; a mapped group gets its tenant; the platform may', async () => {
    const merge = 'application/merge-patch+json';
    const relabel = await platform.send(
      'tenantA',
      'PATCH',
      '/api/v1/namespaces/tenant-a',
      { metadata: { labels: { 'keymaster.dev/tenant': 'tenant-b' } } },
      merge,
    );
    expect(relabel.status).to.equal(403);
    expect(relabel.body.message).to.equal(
      'admission webhook "tenant.namespaces.keymaster.dev" denied the request: alice may not change the label ' +
        'keymaster.dev/tenant from tenant-a to tenant-b on namespace tenant-a: only the platform team (privileged users and groups of keymaster run) sets the tenant of a namespace',
    );
    const removed = await platform.send(
      'tenantA',
      'PATCH',
      '/api/v1/namespaces/tenant-a',
      { metadata: { labels: { 'keymaster.dev/tenant': null } } },
      merge,
    );
    expect(removed.status).to.equal(403);
    const claimed = await platform.send(
      'tenantA',
      'POST',
      '/api/v1/namespaces',
      namespace('sneaky', { 'keymaster.dev/tenant': 'tenant-b' }),
    );
    expect(claimed.status).to.equal(403);
    const mapped = await platform.send('tenantA', 'POST', '/api/v1/namespaces', namespace('tenant-a-dev'));
    expect(mapped.status).to.equal(201);
    expect(mapped.body.metadata?.labels).to.include({ 'keymaster.dev/tenant': 'tenant-a' });
    const moved = await platform.send(
      'platform',
      'PATCH',
      '/api/v1/namespaces/tenant-a-dev',
      { metadata: { labels: { 'keymaster.dev/tenant': 'tenant-b' } } },
      merge,
    );
    expect(moved.status).to.equal(200);
  });

  it('reloads a rotated serving certificate without a restart, and injects the new CA', async () => {
    const { ca } = await writeServingCertificate(platform.certDir, 'keymaster-webhook-ca-2');
    const api = platform.as('admin').kubeConfig.makeApiClient(AdmissionregistrationV1Api);
    await eventually(async () => {
      const configuration = await api.readMutatingWebhookConfiguration({ name: 'keymaster' });
      expect(configuration.webhooks?.map((webhook) => webhook.clientConfig.caBundle)).to.deep.equal(
        configuration.webhooks?.map(() => Buffer.from(ca).toString('base64')),
      );
    }, 30_000);
    // The emulator now trusts only the new CA: a call that succeeds proves the new certificate is served.
    const refused = await platform.send(
      'tenantB',
      'POST',
      clusters('tenant-b'),
      cluster('again', { identityRef: ROLE_REF('tenant-a') }),
    );
    expect(refused.status).to.equal(403);
    expect(platform.logs.some((line) => line.includes('webhook serving certificate reloaded'))).to.equal(true);
  });
});
