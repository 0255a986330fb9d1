import { requireHelm } from '@keymaster/testenv';
import { expect } from 'chai';
import { parse } from 'yaml';
import { CHART, codeBlock, parseManifests, readManifests, readText, type Manifest } from './repo.js';
import { NAMESPACE, helm, only, render, valuesFile } from './helm.js';

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}
interface Container {
  name: string;
  image: string;
  args: string[];
  env: { name: string; value?: string }[];
  resources: unknown;
  securityContext: unknown;
  ports: unknown;
  livenessProbe: unknown;
  readinessProbe: unknown;
}
interface PodSpec {
  serviceAccountName: string;
  securityContext: unknown;
  affinity: unknown;
  nodeSelector?: unknown;
  tolerations?: unknown;
  priorityClassName?: string;
  containers: Container[];
}
type Deployment = Manifest & { spec: { replicas: number; template: { spec: PodSpec } } };

const rules = (role: Manifest) => (role as Manifest & { rules: Rule[] }).rules;
const podSpec = (manifests: Manifest[]) => (only(manifests, 'Deployment') as Deployment).spec.template.spec;
const container = (manifests: Manifest[]) => podSpec(manifests).containers[0]!;
const CREATE_IDENTITY: Rule = {
  apiGroups: ['infrastructure.keymaster.dev'],
  resources: ['awsclustercontrolleridentities'],
  verbs: ['create'],
};
/** The rules on AWSClusters and their ledgers: namespaced, so a Role of watch.namespace with that value. */
const AWSCLUSTER_RULES = (role: Manifest) =>
  rules(role).filter((rule) =>
    rule.resources.some((resource) => ['awsclusters', 'awsclusters/status', 'awsclusterledgers'].includes(resource)),
  );
const appVersion = (parse(readText('deploy/helm/keymaster/Chart.yaml')) as { appVersion: string }).appVersion;

describe(`the Helm chart deploy/helm/keymaster, with the real helm`, function () {
  this.timeout(120_000);

  before(() => requireHelm());

  it('passes helm lint --strict, with the defaults and with every optional part turned on', async () => {
    for (const values of [
      {},
      {
        metrics: {
          serviceMonitor: { enabled: true },
          prometheusRule: { enabled: true },
          grafanaDashboard: { enabled: true },
        },
        watch: { namespace: 'tenant-a', filter: 'shard-1' },
        featureGates: { AutoControllerIdentityCreator: true },
        adoptClusterAPI: { enabled: true },
        webhooks: { enabled: true, tenantGroups: { 'tenant-a-developers': 'tenant-a' } },
        credentialVending: { allowedNamespaces: { list: ['tenant-a', 'tenant-b'] } },
        tenants: { namespaces: [{ name: 'tenant-a', groups: ['tenant-a-developers'] }] },
      },
      { webhooks: { enabled: true, certManager: { enabled: true } } },
    ]) {
      const result = await helm(['lint', '--strict', CHART, '-f', await valuesFile(values)]);
      expect(result.code, `${result.stdout}${result.stderr}`).to.equal(0);
      expect(result.stdout).to.include('1 chart(s) linted, 0 chart(s) failed');
    }
  });

  it("accepts docs/operations.md's values example (helm lint --strict: the schema, then the templates)", async () => {
    const example = parse(codeBlock('docs/operations.md', '# my-values.yaml')) as object;
    const result = await helm(['lint', '--strict', CHART, '-f', await valuesFile(example)]);
    expect(result.code, `${result.stdout}${result.stderr}`).to.equal(0);
  });

  describe('helm template', () => {
    it('renders an install with the defaults: these kinds, each in the release namespace when namespaced, no empty document', async () => {
      const manifests = await render();
      expect(manifests.map((object) => `${object.kind}/${object.metadata.name}`).sort()).to.deep.equal([
        'ClusterRole/keymaster-credential-vending',
        'ClusterRole/keymaster-manager',
        'ClusterRoleBinding/keymaster-manager',
        'Deployment/keymaster-controller',
        'PodDisruptionBudget/keymaster-controller',
        'Role/keymaster-manager',
        'RoleBinding/keymaster-manager',
        'Service/keymaster-controller-metrics',
        'ServiceAccount/keymaster',
        'ValidatingAdmissionPolicy/keymaster-ledger-writers',
        'ValidatingAdmissionPolicyBinding/keymaster-ledger-writers',
      ]);
      for (const object of manifests) {
        const clusterScoped = object.kind.startsWith('Cluster') || object.kind.startsWith('ValidatingAdmissionPolicy');
        expect(object.metadata.namespace, `${object.kind} namespace`).to.equal(clusterScoped ? undefined : NAMESPACE);
        expect(object.metadata.labels?.['app.kubernetes.io/name'], `${object.kind} labels`).to.equal('keymaster');
      }
    });

    it("grants deploy/rbac's rules, less the AutoControllerIdentityCreator rule while that gate is off", async () => {
      const [kustomizeClusterRole] = readManifests('deploy/rbac/cluster-role.yaml');
      const [kustomizeRole] = readManifests('deploy/rbac/role.yaml');
      const gateOff = await render();
      expect(rules(only(gateOff, 'ClusterRole', 'keymaster-manager'))).to.deep.equal(
        rules(kustomizeClusterRole!).filter((rule) => JSON.stringify(rule) !== JSON.stringify(CREATE_IDENTITY)),
      );
      const gateOn = await render({ featureGates: { AutoControllerIdentityCreator: true } });
      expect(rules(only(gateOn, 'ClusterRole', 'keymaster-manager'))).to.deep.equal(rules(kustomizeClusterRole!));
      expect(rules(only(gateOn, 'Role'))).to.deep.equal(rules(kustomizeRole!));
      // The bindings give them to the pod's ServiceAccount, in the release namespace.
      const serviceAccount = podSpec(gateOn).serviceAccountName;
      for (const kind of ['ClusterRoleBinding', 'RoleBinding']) {
        const binding = only(gateOn, kind, 'keymaster-manager') as Manifest & {
          roleRef: { kind: string; name: string };
          subjects: unknown[];
        };
        expect(binding.roleRef, kind).to.deep.equal({
          apiGroup: 'rbac.authorization.k8s.io',
          kind: kind.replace('Binding', ''),
          name: 'keymaster-manager',
        });
        expect(binding.subjects, kind).to.deep.equal([
          { kind: 'ServiceAccount', name: serviceAccount, namespace: NAMESPACE },
        ]);
      }
    });

    it("with adoptClusterAPI.enabled, passes --adopt-cluster-api and grants deploy/cluster-api/adoption-rbac.yaml's rules too", async () => {
      const [kustomizeClusterRole] = readManifests('deploy/rbac/cluster-role.yaml');
      const [adoptionRole] = readManifests('deploy/cluster-api/adoption-rbac.yaml');
      const off = await render();
      expect(container(off).args).not.to.include('--adopt-cluster-api');
      const on = await render({
        adoptClusterAPI: { enabled: true },
        featureGates: { AutoControllerIdentityCreator: true },
      });
      expect(container(on).args).to.include('--adopt-cluster-api');
      expect(rules(only(on, 'ClusterRole', 'keymaster-manager'))).to.deep.equal([
        ...rules(kustomizeClusterRole!),
        ...rules(adoptionRole!),
      ]);
    });

    it("grants deploy/rbac's credential-vending Secret rule in the namespaces of credentialVending.allowedNamespaces.list only", async () => {
      const [kustomizeRole] = readManifests('deploy/rbac/credential-vending-role.yaml');
      const none = await render();
      expect(rules(only(none, 'ClusterRole', 'keymaster-credential-vending'))).to.deep.equal(rules(kustomizeRole!));
      expect(none.filter(({ kind }) => kind === 'RoleBinding').map(({ metadata }) => metadata.name)).to.deep.equal([
        'keymaster-manager',
      ]);
      const manifests = await render({
        credentialVending: { allowedNamespaces: { list: ['tenant-a', 'tenant-b'] } },
        serviceAccount: { name: 'km' },
      });
      const bindings = manifests.filter(
        ({ kind, metadata }) => kind === 'RoleBinding' && metadata.name === 'keymaster-credential-vending',
      ) as (Manifest & { roleRef: unknown; subjects: unknown })[];
      expect(bindings.map(({ metadata }) => metadata.namespace)).to.deep.equal(['tenant-a', 'tenant-b']);
      for (const binding of bindings) {
        expect(binding.roleRef).to.deep.equal({
          apiGroup: 'rbac.authorization.k8s.io',
          kind: 'ClusterRole',
          name: 'keymaster-credential-vending',
        });
        expect(binding.subjects).to.deep.equal([{ kind: 'ServiceAccount', name: 'km', namespace: NAMESPACE }]);
      }
      // The same RoleBinding as deploy/examples enables vending with, for the default ServiceAccount.
      const [example] = readManifests('deploy/examples/44-credential-vending.yaml') as (Manifest & {
        roleRef: unknown;
        subjects: unknown;
      })[];
      const tenantB = (await render({ credentialVending: { allowedNamespaces: { list: ['tenant-b'] } } })).find(
        ({ kind, metadata }) => kind === 'RoleBinding' && metadata.namespace === 'tenant-b',
      ) as Manifest & { roleRef: unknown; subjects: unknown };
      expect([tenantB.metadata.name, tenantB.roleRef, tenantB.subjects]).to.deep.equal([
        example!.metadata.name,
        example!.roleRef,
        example!.subjects,
      ]);
    });

    it("sets up tenants.namespaces as docs/security.md's tenant RBAC does: namespace with its tenancy label, RoleBinding, ResourceQuota", async () => {
      const block = /<!-- tenant-rbac[^>]*-->\s*```yaml\n([\s\S]*?)```/.exec(readText('docs/security.md'))!;
      const example = parseManifests(block[1]!, 'docs/security.md');
      const none = await render();
      expect(none.filter(({ kind }) => ['Namespace', 'ResourceQuota'].includes(kind))).to.deep.equal([]);
      const manifests = await render({
        tenants: {
          namespaces: [
            { name: 'tenant-a', groups: ['tenant-a-developers'] },
            { name: 'tenant-b', tenant: 'blue', groups: ['b-devs', 'b-ops'] },
          ],
        },
      });
      const editor = only(manifests, 'ClusterRole', 'keymaster-awscluster-editor');
      expect(rules(editor)).to.deep.equal(rules(only(example, 'ClusterRole', 'keymaster-awscluster-editor')));
      const namespaces = manifests.filter(({ kind }) => kind === 'Namespace');
      expect(
        namespaces.map(({ metadata }) => [metadata.name, metadata.labels?.['keymaster.dev/tenant']]),
      ).to.deep.equal([
        ['tenant-a', 'tenant-a'],
        ['tenant-b', 'blue'],
      ]);
      for (const { metadata } of namespaces)
        expect((metadata as { annotations?: unknown }).annotations, 'helm uninstall keeps it').to.deep.equal({
          'helm.sh/resource-policy': 'keep',
        });
      const [quotaA, quotaB] = manifests.filter(({ kind }) => kind === 'ResourceQuota') as (Manifest & {
        spec: unknown;
      })[];
      const documented = only(example, 'ResourceQuota') as Manifest & { spec: unknown };
      expect([quotaA!.metadata, quotaA!.spec]).to.deep.equal([
        { ...documented.metadata, labels: quotaA!.metadata.labels },
        documented.spec,
      ]);
      expect(quotaB!.metadata.namespace).to.equal('tenant-b');
      const binding = (namespace: string) =>
        manifests.find(
          ({ kind, metadata }) => kind === 'RoleBinding' && metadata.namespace === namespace,
        ) as Manifest & { roleRef: unknown; subjects: unknown };
      const documentedBinding = only(example, 'RoleBinding', 'tenant-a-awsclusters') as Manifest & {
        roleRef: unknown;
        subjects: unknown;
      };
      expect([binding('tenant-a').roleRef, binding('tenant-a').subjects]).to.deep.equal([
        documentedBinding.roleRef,
        documentedBinding.subjects,
      ]);
      expect(binding('tenant-b').subjects).to.deep.equal(
        ['b-devs', 'b-ops'].map((name) => ({ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name })),
      );
    });

    it("installs deploy/policies' ledger policy for the release's ServiceAccount and groups, scoped to watch.namespace", async () => {
      const kustomize = readManifests('deploy/policies/ledger-writers.yaml');
      const chart = await render();
      for (const kind of ['ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding'])
        expect(only(chart, kind).spec, kind).to.deep.equal(kustomize.find((object) => object.kind === kind)!.spec);
      type Policy = Manifest & {
        spec: { variables: { name: string; expression: string }[]; matchConstraints: Record<string, unknown> };
      };
      const narrowed = only(
        await render({
          serviceAccount: { name: 'km' },
          ledgerPolicy: { privilegedGroups: ['platform-team', 'system:masters'] },
          watch: { namespace: 'tenant-a' },
        }),
        'ValidatingAdmissionPolicy',
      ) as Policy;
      expect(Object.fromEntries(narrowed.spec.variables.map(({ name, expression }) => [name, expression]))).to.include({
        writers: `['system:serviceaccount:${NAMESPACE}:km']`,
        groups: "['platform-team', 'system:masters']",
      });
      expect(narrowed.spec.matchConstraints['namespaceSelector']).to.deep.equal({
        matchLabels: { 'kubernetes.io/metadata.name': 'tenant-a' },
      });
      const off = await render({ ledgerPolicy: { enabled: false } });
      expect(off.filter(({ kind }) => kind.startsWith('ValidatingAdmissionPolicy'))).to.deep.equal([]);
    });

    it("runs the appVersion's image with Kustomize's flags, probes, resources and restricted security contexts", async () => {
      const manifests = await render();
      const [kustomize] = readManifests('deploy/manager/deployment.yaml') as Deployment[];
      const wanted = kustomize!.spec.template.spec.containers[0]!;
      const chart = container(manifests);
      expect(chart.image).to.equal(`keymaster:${appVersion}`);
      for (const field of ['ports', 'livenessProbe', 'readinessProbe', 'resources', 'securityContext', 'env'] as const)
        expect(chart[field], field).to.deep.equal(wanted[field]);
      expect(chart.args).to.include.members(wanted.args);
      expect(chart.args).to.deep.equal([
        'run',
        '--namespace=$(POD_NAMESPACE)',
        '--leader-elect',
        '--leader-election-id=keymaster',
        '--metrics-bind-address=:8080',
        '--health-probe-bind-address=:8081',
        '--sync-period=10m',
        '--tag-layer-grace-period=10m',
        '--max-concurrent-reconciles=10',
        '--max-clusters-per-namespace=500',
        '--max-credentials-requests-per-namespace=100',
        '--aws-tagging-read-rate=15,12',
        '--aws-tagging-write-rate=5,4',
        '--aws-ec2-write-rate=10,80',
        '--aws-ec2-read-rate=20,80',
        '--sts-region=us-east-1',
        '--max-credential-sets-per-namespace=50',
        '--sts-rate-per-namespace=1,20',
        '--min-renewal-interval=5m',
        '--log-level=info',
        '--log-format=json',
        '--feature-gates=AutoControllerIdentityCreator=false',
      ]);
      expect(podSpec(manifests).securityContext).to.deep.equal({
        runAsNonRoot: true,
        runAsUser: 1000,
        runAsGroup: 1000,
        seccompProfile: { type: 'RuntimeDefault' },
      });
      // One replica per node preferred, as Kustomize's; the chart's pods also carry the release's name.
      const spread = JSON.stringify(kustomize!.spec.template.spec.affinity).replace(
        '"app.kubernetes.io/name":"keymaster"',
        '"app.kubernetes.io/name":"keymaster","app.kubernetes.io/instance":"keymaster"',
      );
      expect(podSpec(manifests).affinity).to.deep.equal(JSON.parse(spread));
      expect((only(manifests, 'Deployment') as Deployment).spec.replicas).to.equal(2);
    });

    it('puts the values into the Deployment: image digest, replicas, flags, gates, watch, extra args, env, scheduling', async () => {
      const digest = `sha256:${'ab'.repeat(32)}`;
      const manifests = await render({
        image: { repository: 'registry.example.com/platform/keymaster', tag: '9.9.9', digest, pullPolicy: 'Always' },
        replicaCount: 3,
        leaderElection: { id: 'keymaster-shard-1' },
        controller: {
          syncPeriod: '5m',
          tagLayerGracePeriod: '1h',
          maxConcurrentReconciles: 25,
          awsTaggingReadRate: '45,36',
          awsTaggingWriteRate: '50,100',
          stsRegion: 'eu-west-1',
          maxCredentialSetsPerNamespace: 200,
          stsRatePerNamespace: '2,40',
          minRenewalInterval: '1m',
          logLevel: 'debug',
          logFormat: 'text',
          extraArgs: ['--some-future-flag=x'],
        },
        featureGates: { AutoControllerIdentityCreator: true },
        watch: { namespace: 'tenant-a', filter: 'shard-1' },
        env: [{ name: 'AWS_REGION', value: 'eu-west-1' }],
        resources: { requests: { cpu: '1', memory: '1Gi' } },
        heapLimitMiB: 896,
        nodeSelector: { 'kubernetes.io/os': 'linux' },
        tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'platform', effect: 'NoSchedule' }],
        affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [] } } },
        priorityClassName: 'system-cluster-critical',
        serviceAccount: {
          name: 'km',
          annotations: { 'eks.amazonaws.com/role-arn': 'arn:aws:iam::111111111111:role/km' },
        },
      });
      const pod = podSpec(manifests);
      const manager = container(manifests);
      expect(manager.image).to.equal(`registry.example.com/platform/keymaster@${digest}`);
      expect((only(manifests, 'Deployment') as Deployment).spec.replicas).to.equal(3);
      expect(manager.args).to.include.members([
        '--leader-election-id=keymaster-shard-1',
        '--sync-period=5m',
        '--tag-layer-grace-period=1h',
        '--max-concurrent-reconciles=25',
        '--aws-tagging-read-rate=45,36',
        '--aws-tagging-write-rate=50,100',
        '--sts-region=eu-west-1',
        '--max-credential-sets-per-namespace=200',
        '--sts-rate-per-namespace=2,40',
        '--min-renewal-interval=1m',
        '--log-level=debug',
        '--log-format=text',
        '--feature-gates=AutoControllerIdentityCreator=true',
        '--watch-namespace=tenant-a',
        '--watch-filter=shard-1',
        '--some-future-flag=x',
      ]);
      expect(manager.args.at(-1), 'extra args come last').to.equal('--some-future-flag=x');
      expect(manager.env.map((variable) => variable.name)).to.deep.equal([
        'POD_NAMESPACE',
        'NODE_OPTIONS',
        'AWS_REGION',
      ]);
      expect(manager.env.find((variable) => variable.name === 'NODE_OPTIONS')?.value).to.equal(
        '--max-old-space-size=896',
      );
      // Maps merge with the defaults (Helm's rule): the default memory limit stays unless set to null.
      expect(manager.resources).to.deep.equal({ requests: { cpu: '1', memory: '1Gi' }, limits: { memory: '512Mi' } });
      expect(pod.nodeSelector).to.deep.equal({ 'kubernetes.io/os': 'linux' });
      expect(pod.tolerations).to.have.length(1);
      expect(pod.affinity).to.have.keys('nodeAffinity');
      expect(pod.priorityClassName).to.equal('system-cluster-critical');
      expect(pod.serviceAccountName).to.equal('km');
      expect(only(manifests, 'ServiceAccount', 'km').metadata).to.have.nested.property(
        'annotations.eks\\.amazonaws\\.com/role-arn',
      );
    });

    it('with watch.namespace, grants the AWSCluster and ledger rules in that namespace only', async () => {
      const manifests = await render({ watch: { namespace: 'tenant-a' } });
      expect(AWSCLUSTER_RULES(only(manifests, 'ClusterRole', 'keymaster-manager')), 'ClusterRole').to.deep.equal([]);
      const watched = only(manifests, 'Role', 'keymaster-awsclusters');
      expect(watched.metadata.namespace).to.equal('tenant-a');
      const [kustomizeClusterRole] = readManifests('deploy/rbac/cluster-role.yaml');
      expect(rules(watched)).to.deep.equal(AWSCLUSTER_RULES(kustomizeClusterRole!));
      const binding = only(manifests, 'RoleBinding', 'keymaster-awsclusters') as Manifest & { subjects: unknown[] };
      expect(binding.metadata.namespace).to.equal('tenant-a');
      expect(binding.subjects).to.deep.equal([{ kind: 'ServiceAccount', name: 'keymaster', namespace: NAMESPACE }]);
    });

    it("renders the ServiceMonitor, deploy/monitoring's alerts and the dashboard ConfigMap when asked", async () => {
      const manifests = await render({
        metrics: {
          serviceMonitor: { enabled: true, interval: '15s', labels: { release: 'prometheus' } },
          prometheusRule: { enabled: true, labels: { release: 'prometheus' } },
          grafanaDashboard: { enabled: true },
        },
      });
      const monitor = only(manifests, 'ServiceMonitor') as Manifest & {
        spec: { jobLabel: string; selector: { matchLabels: object }; endpoints: { port: string; interval: string }[] };
      };
      expect(monitor.metadata.labels).to.include({ release: 'prometheus' });
      expect(monitor.spec.jobLabel).to.equal('app.kubernetes.io/name');
      expect(monitor.spec.endpoints).to.deep.equal([{ port: 'metrics', path: '/metrics', interval: '15s' }]);
      const service = only(manifests, 'Service') as Manifest & { spec: { selector: object } };
      expect(monitor.spec.selector.matchLabels).to.deep.equal(service.spec.selector);
      expect(service.metadata.labels?.['app.kubernetes.io/name'], 'the job label').to.equal('keymaster');

      const rule = only(manifests, 'PrometheusRule') as Manifest & { spec: unknown };
      const [alerts] = readManifests('deploy/monitoring/keymaster-alerts.yaml') as (Manifest & { spec: unknown })[];
      expect(rule.spec).to.deep.equal(alerts!.spec);

      const dashboard = only(manifests, 'ConfigMap', 'keymaster-dashboard') as Manifest & {
        data: Record<string, string>;
      };
      expect(dashboard.metadata.labels).to.include({ grafana_dashboard: '1' });
      expect(JSON.parse(dashboard.data['keymaster-dashboard.json']!)).to.deep.equal(
        JSON.parse(readText('deploy/monitoring/keymaster-dashboard.json')),
      );
    });

    it('leaves the PodDisruptionBudget out with one replica or when disabled', async () => {
      for (const values of [{ replicaCount: 1 }, { podDisruptionBudget: { enabled: false } }])
        expect(
          (await render(values)).map((object) => object.kind),
          JSON.stringify(values),
        ).to.not.include('PodDisruptionBudget');
    });

    it("renders deploy/webhooks' admission webhooks, their Service, flags, certificate volume and CA injection", async () => {
      const manifests = await render({
        webhooks: { enabled: true, tenantGroups: { 'tenant-a-developers': 'tenant-a' } },
      });
      for (const kustomize of readManifests('deploy/webhooks/webhooks.yaml') as (Manifest & { webhooks: unknown })[]) {
        const chart = only(manifests, kustomize.kind, 'keymaster') as Manifest & { webhooks: unknown };
        expect(chart.webhooks, kustomize.kind).to.deep.equal(kustomize.webhooks);
      }
      const [kustomizeService] = readManifests('deploy/webhooks/service.yaml') as (Manifest & {
        spec: { ports: unknown };
      })[];
      const service = only(manifests, 'Service', 'keymaster-webhook') as Manifest & { spec: { ports: unknown } };
      expect(service.spec.ports).to.deep.equal(kustomizeService!.spec.ports);
      const args = podSpec(manifests).containers[0]!.args;
      expect(args).to.include.members([
        '--webhook-port=9443',
        '--webhook-cert-dir=/tmp/k8s-webhook-server/serving-certs',
        '--webhook-inject-ca-bundle',
        '--webhook-configuration-name=keymaster',
        '--admission-privileged-groups=system:masters',
        '--tenant-label=keymaster.dev/tenant',
        '--tenant-groups=tenant-a-developers=tenant-a,',
      ]);
      // The CA injector's rights and the inspect API as deploy/webhooks has them.
      const kustomize = parseManifests(
        ['ca-injector-rbac.yaml', 'inspect-api.yaml']
          .map((file) => readText(`deploy/webhooks/${file}`))
          .join('\n---\n'),
        'deploy/webhooks',
      );
      expect(rules(only(manifests, 'ClusterRole', 'keymaster-webhook-ca-injector'))).to.deep.equal(
        rules(only(kustomize, 'ClusterRole', 'keymaster-webhook-ca-injector')),
      );
      expect(rules(only(manifests, 'ClusterRole', 'keymaster-inspect-api'))).to.deep.equal(
        rules(only(kustomize, 'ClusterRole', 'keymaster-inspect-api')),
      );
      expect((only(manifests, 'APIService') as Manifest & { spec: unknown }).spec).to.deep.equal(
        (only(kustomize, 'APIService') as Manifest & { spec: unknown }).spec,
      );
      const withCertManager = await render({ webhooks: { enabled: true, certManager: { enabled: true } } });
      expect(podSpec(withCertManager).containers[0]!.args).to.not.include('--webhook-inject-ca-bundle');
      expect(
        (only(withCertManager, 'ValidatingWebhookConfiguration').metadata as { annotations?: object }).annotations,
      ).to.deep.equal({
        'cert-manager.io/inject-ca-from': 'keymaster-system/keymaster-webhook',
      });
      expect(withCertManager.map((object) => object.kind)).to.include.members(['Certificate', 'Issuer']);
    });

    it('refuses values that cannot work, naming the value and the fix', async () => {
      const refusal = async (values: object) => {
        const result = await helm(['template', 'keymaster', CHART, '-f', await valuesFile(values)]);
        expect(result.code, JSON.stringify(values)).to.not.equal(0);
        return result.stderr;
      };
      expect(await refusal({ controller: { sycPeriod: '5m' } })).to.match(
        /at '\/controller': additional properties 'sycPeriod' not allowed/,
      );
      expect(await refusal({ image: { digest: 'sha256:abc' } })).to.include("at '/image/digest'");
      expect(await refusal({ controller: { syncPeriod: 'ten minutes' } })).to.include("at '/controller/syncPeriod'");
      expect(await refusal({ webhooks: { enabled: true, tenantGroups: { devs: '' } } })).to.include(
        "at '/webhooks/tenantGroups/devs'",
      );
      expect(await refusal({ replicaCount: 2, leaderElection: { enabled: false } })).to.include(
        'replicaCount is 2 with leaderElection.enabled false: every replica would reconcile and write. Set leaderElection.enabled true, shards above 0, or replicaCount 1.',
      );
      expect(await refusal({ shards: 257 })).to.include("at '/shards'");
      expect(await refusal({ credentialVending: { allowedNamespaces: { list: ['Tenant_A'] } } })).to.include(
        "at '/credentialVending/allowedNamespaces/list/0'",
      );
      expect(
        await refusal({ tenants: { namespaces: [{ name: 'tenant-a', groups: ['a'] }], quota: { clusters: 501 } } }),
      ).to.include("tenants.quota: each count must be at most the controller's cap");
      expect(await refusal({ tenants: { namespaces: [{ name: 'tenant-a' }] } })).to.include(
        "at '/tenants/namespaces/0'",
      );
    });

    it("with shards, passes --shards and the Leases' prefix instead of --leader-elect", async () => {
      const manifests = await render({ replicaCount: 3, shards: 6, leaderElection: { id: 'keymaster-eu' } });
      const { args } = container(manifests);
      expect(args).to.include.members(['--shards=6', '--leader-election-id=keymaster-eu']);
      expect(args).not.to.include('--leader-elect');
      expect((only(manifests, 'Deployment') as Deployment).spec.replicas).to.equal(3);
      expect(
        container(await render({ replicaCount: 3, shards: 6, leaderElection: { enabled: false } })).args,
      ).to.include('--shards=6');
    });
  });
});
