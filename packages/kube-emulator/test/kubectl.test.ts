import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { kubectl, kubectlBinary, type KubectlResult } from './helpers/kubectl.js';
import { startTestCluster, type TestCluster } from './helpers/emulator.js';

const CLUSTER = (
  name: string,
  namespace: string,
  extra = '',
): string => `apiVersion: infrastructure.keymaster.dev/v1beta1
kind: AWSCluster
metadata:
  name: ${name}
  namespace: ${namespace}
  labels:
    team: ${name.startsWith('pay') ? 'payments' : 'data'}
spec:
  region: eu-west-1
  identityRef:
    kind: AWSClusterStaticIdentity
    name: tenant
${extra}`;

const NAMESPACES = `apiVersion: v1
kind: Namespace
metadata:
  name: tenant-a
---
apiVersion: v1
kind: Namespace
metadata:
  name: tenant-b
`;

for (const minor of [33, 27]) {
  describe(`kubectl 1.${minor} against the emulator`, function () {
    this.timeout(30_000);
    const binary = kubectlBinary(minor);
    let cluster: TestCluster;
    const k = (...args: string[]): Promise<KubectlResult> => kubectl(binary, cluster.kubeconfig, args);
    const ok = async (...args: string[]): Promise<string> => {
      const result = await k(...args);
      expect(result.code, `kubectl ${args.join(' ')}: ${result.stderr}`).to.equal(0);
      return result.stdout;
    };
    const patch = (target: string[], type: string, body: string): Promise<string> =>
      ok('patch', ...target, '--type', type, '-p', body);
    const file = (name: string, text: string): string => {
      const path = join(dirname(cluster.kubeconfig), name);
      writeFileSync(path, text);
      return path;
    };

    before(async () => {
      cluster = await startTestCluster();
      await ok('apply', '-f', file('namespaces.yaml', NAMESPACES));
    });
    after(() => cluster.stop());

    it('lists built-in and CRD resources in api-resources', async () => {
      const out = await ok('api-resources');
      expect(out).to.match(/^awsclusters\s+kmc\s+infrastructure\.keymaster\.dev\/v1beta1\s+true\s+AWSCluster$/m);
      expect(out).to.match(/^leases\s+coordination\.k8s\.io\/v1\s+true\s+Lease$/m);
      expect(out).to.match(/^events\s+ev\s+events\.k8s\.io\/v1\s+true\s+Event$/m);
      expect(out).to.match(/^customresourcedefinitions\s+crd,crds\s+apiextensions\.k8s\.io\/v1\s+false/m);
    });

    it('applies client-side (create, then unchanged, then configured)', async () => {
      const path = file('pay.yaml', CLUSTER('payments', 'tenant-a'));
      expect(await ok('apply', '-f', path)).to.contain('awscluster.infrastructure.keymaster.dev/payments created');
      expect(await ok('apply', '-f', path)).to.contain('awscluster.infrastructure.keymaster.dev/payments unchanged');
      const changed = file('pay2.yaml', CLUSTER('payments', 'tenant-a').replace('eu-west-1', 'us-east-1'));
      expect(await ok('apply', '-f', changed)).to.contain('payments configured');
      const live = JSON.parse(await ok('get', 'kmc', 'payments', '-n', 'tenant-a', '-o', 'json')) as {
        spec: { region: string };
        metadata: { generation: number };
      };
      expect(live.spec.region).to.equal('us-east-1');
      expect(live.metadata.generation).to.equal(2);
    });

    it('applies server-side, reports conflicts with other managers, and forces them', async () => {
      const path = file(
        'ssa.yaml',
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\n  namespace: tenant-a\ndata:\n  a: "1"\n  b: "2"\n',
      );
      expect(await ok('apply', '--server-side', '-f', path)).to.contain('configmap/ssa serverside-applied');
      await ok('patch', 'configmap', 'ssa', '-n', 'tenant-a', '--type', 'merge', '-p', '{"data":{"a":"9"}}');
      const conflict = await k('apply', '--server-side', '-f', path);
      expect(conflict.code).to.not.equal(0);
      expect(conflict.stderr).to.contain('conflict with "kubectl-patch"').and.to.contain('.data.a');
      await ok('apply', '--server-side', '--force-conflicts', '-f', path);
      const without = file(
        'ssa2.yaml',
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\n  namespace: tenant-a\ndata:\n  a: "1"\n',
      );
      await ok('apply', '--server-side', '-f', without);
      expect(await ok('get', 'cm', 'ssa', '-n', 'tenant-a', '-o', 'jsonpath={.data}')).to.equal('{"a":"1"}');
    });

    it('creates with create -f and the create subcommands', async () => {
      expect(await ok('create', '-f', file('data.yaml', CLUSTER('data', 'tenant-b')))).to.contain(
        'awscluster.infrastructure.keymaster.dev/data created',
      );
      const again = await k('create', '-f', file('data.yaml', CLUSTER('data', 'tenant-b')));
      expect(again.stderr).to.contain('AlreadyExists').and.to.contain('"data" already exists');
      await ok('create', 'namespace', `made-by-${minor}`);
      await ok('create', 'secret', 'generic', 'token', '-n', 'tenant-b', '--from-literal=key=value');
      await ok('create', 'configmap', 'settings', '-n', 'tenant-b', '--from-literal=mode=fast');
      await ok('create', 'serviceaccount', 'robot', '-n', 'tenant-b');
      const role =
        'apiVersion: infrastructure.keymaster.dev/v1beta1\nkind: AWSClusterRoleIdentity\nmetadata:\n  name: hub\nspec:\n  roleARN: arn:aws:iam::123456789012:role/hub\n';
      await ok('create', '-f', file('role.yaml', role));
      expect(await ok('get', 'secret', 'token', '-n', 'tenant-b', '-o', 'jsonpath={.type} {.data.key}')).to.equal(
        `Opaque ${Buffer.from('value').toString('base64')}`,
      );
      expect(await ok('get', 'ns', `made-by-${minor}`, '-o', 'name')).to.equal(`namespace/made-by-${minor}\n`);
    });

    it('gets as yaml, json, wide and name, with selectors and across namespaces', async () => {
      // The CRD's printer columns; -o wide adds those of priority 1 at the end. Cells without status are empty.
      expect(await ok('get', 'awsclusters', '-A')).to.match(
        /^NAMESPACE\s+NAME\s+READY\s+REASON\s+ACCOUNT\s+IN-SYNC\s+DRIFTED\s+AGE$/m,
      );
      const wide = await ok('get', 'awsclusters', '-A', '-o', 'wide');
      expect(wide).to.match(
        /^NAMESPACE\s+NAME\s+READY\s+REASON\s+ACCOUNT\s+IN-SYNC\s+DRIFTED\s+AGE\s+REGION\s+IDENTITY\s+CHAIN$/m,
      );
      expect(wide).to.match(/^tenant-a\s+payments\s+\S+\s+us-east-1\s+tenant\s*$/m);
      expect(wide).to.match(/^tenant-b\s+data\s+\S+\s+eu-west-1\s+tenant\s*$/m);
      expect(await ok('get', 'kmc', '-A', '-l', 'team=payments', '-o', 'name')).to.equal(
        'awscluster.infrastructure.keymaster.dev/payments\n',
      );
      expect(await ok('get', 'kmc', '-A', '-l', 'team notin (payments)', '-o', 'name')).to.equal(
        'awscluster.infrastructure.keymaster.dev/data\n',
      );
      expect(await ok('get', 'kmc', '-A', '-l', '!team', '-o', 'name')).to.equal('');
      expect(await ok('get', 'kmc', 'data', '-n', 'tenant-b', '-o', 'yaml')).to.match(/^kind: AWSCluster$/m);
      expect(await ok('get', 'cm', '-n', 'tenant-b', '-o', 'wide')).to.match(/^settings\s+1\s+/m);
      expect(await ok('get', 'secrets', '-n', 'tenant-b')).to.match(/^token\s+Opaque\s+1\s+/m);
      expect(await ok('get', 'kmri')).to.match(/^NAME\s+ROLE\s+SOURCE\s+ACCOUNT\s+CLUSTERS\s+NAMESPACES\s+AGE$/m);
      expect(await ok('get', 'kmri', '-o', 'wide')).to.match(
        /^NAME\s+ROLE\s+SOURCE\s+ACCOUNT\s+CLUSTERS\s+NAMESPACES\s+PRINCIPAL\s+AGE$/m,
      );
    });

    it('lists events created through events.k8s.io/v1 with the columns of kubectl get events', async () => {
      const event = [
        'apiVersion: events.k8s.io/v1',
        'kind: Event',
        'metadata:',
        '  name: reconciled',
        '  namespace: tenant-b',
        'eventTime: "2024-01-01T00:00:00.000000Z"',
        'reportingController: keymaster',
        'reportingInstance: keymaster-0',
        'action: Reconcile',
        'reason: Tagged',
        'type: Normal',
        'note: 12 resources tagged',
        'regarding:',
        '  kind: AWSCluster',
        '  name: data',
        '  namespace: tenant-b',
      ].join('\n');
      await ok('create', '-f', file('event.yaml', event));
      const out = await ok('get', 'events', '-n', 'tenant-b');
      expect(out).to.match(/^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE$/m);
      expect(out).to.match(/\s+Normal\s+Tagged\s+awscluster\/data\s+12 resources tagged$/m);
    });

    it('labels, annotates and patches with merge, json and strategic patches', async () => {
      await ok('label', 'kmc', 'data', '-n', 'tenant-b', 'stage=dev');
      await ok('annotate', 'kmc', 'data', '-n', 'tenant-b', 'owner=alice');
      await ok('patch', 'kmc', 'data', '-n', 'tenant-b', '--type', 'merge', '-p', '{"spec":{"region":"eu-central-1"}}');
      await patch(
        ['kmc', 'data', '-n', 'tenant-b'],
        'json',
        '[{"op":"add","path":"/spec/additionalTags","value":{"cost":"42"}}]',
      );
      await ok('patch', 'serviceaccount', 'robot', '-n', 'tenant-b', '-p', '{"secrets":[{"name":"token"}]}');
      await ok('patch', 'serviceaccount', 'robot', '-n', 'tenant-b', '-p', '{"secrets":[{"name":"other"}]}');
      const out = await ok(
        'get',
        'kmc',
        'data',
        '-n',
        'tenant-b',
        '-o',
        'jsonpath={.metadata.labels.stage} {.metadata.annotations.owner} {.spec.region} {.spec.additionalTags.cost}',
      );
      expect(out).to.equal('dev alice eu-central-1 42');
      // As kube-apiserver merges: the patch's items first, the live list's others after them.
      expect(await ok('get', 'sa', 'robot', '-n', 'tenant-b', '-o', 'jsonpath={.secrets[*].name}')).to.equal(
        'other token',
      );
      const rejected = await k(
        'patch',
        'kmc',
        'data',
        '-n',
        'tenant-b',
        '--type',
        'merge',
        '-p',
        '{"spec":{"region":"nowhere"}}',
      );
      expect(rejected.stderr).to.contain('spec.region').and.to.contain('should match');
    });

    it('watches with get -w', async () => {
      const watching = k('get', 'kmc', '-n', 'tenant-b', '-o', 'wide', '-w', '--request-timeout=3s');
      await new Promise((resolve) => setTimeout(resolve, 700));
      await ok('label', 'kmc', 'data', '-n', 'tenant-b', 'watched=yes');
      const out = (await watching).stdout;
      expect(out.match(/^data\s.*\seu-central-1\s/gm)).to.have.length.of.at.least(2);
    });

    it('waits for a condition and for deletion', async () => {
      const waiting = k('wait', '--for=condition=Ready', 'kmc/data', '-n', 'tenant-b', '--timeout=10s');
      await new Promise((resolve) => setTimeout(resolve, 500));
      const status = {
        status: {
          conditions: [
            {
              type: 'Ready',
              status: 'True',
              reason: 'Reconciled',
              message: 'ok',
              lastTransitionTime: '2024-01-01T00:00:00Z',
            },
          ],
        },
      };
      await patch(['kmc', 'data', '-n', 'tenant-b', '--subresource=status'], 'merge', JSON.stringify(status));
      const waited = await waiting;
      expect(waited.code, waited.stderr).to.equal(0);
      expect(waited.stdout).to.contain('condition met');
      expect(await ok('get', 'kmc', 'data', '-n', 'tenant-b')).to.match(/^data\s+True\s+Reconciled\s+/m);
    });

    it('deletes objects with finalizers (--wait=false) and waits for them to go', async () => {
      await patch(
        ['kmc', 'payments', '-n', 'tenant-a'],
        'merge',
        '{"metadata":{"finalizers":["keymaster.dev/cleanup"]}}',
      );
      expect(await ok('delete', 'kmc', 'payments', '-n', 'tenant-a', '--wait=false')).to.contain('"payments" deleted');
      expect(
        await ok('get', 'kmc', 'payments', '-n', 'tenant-a', '-o', 'jsonpath={.metadata.deletionTimestamp}'),
      ).to.match(/^\d{4}-/);
      const waiting = k('wait', '--for=delete', 'kmc/payments', '-n', 'tenant-a', '--timeout=10s');
      await new Promise((resolve) => setTimeout(resolve, 500));
      await patch(['kmc', 'payments', '-n', 'tenant-a'], 'json', '[{"op":"remove","path":"/metadata/finalizers"}]');
      expect((await waiting).code).to.equal(0);
      expect((await k('get', 'kmc', 'payments', '-n', 'tenant-a')).stderr).to.contain('NotFound');
      expect(await ok('delete', 'configmap', 'settings', '-n', 'tenant-b')).to.contain('"settings" deleted');
    });

    it('explains the CRDs', async () => {
      const out = await ok('explain', 'awsclusterroleidentities.spec.sessionTags');
      expect(out).to.contain('AWSClusterRoleIdentity');
      expect(out).to.contain('Session tags passed to AssumeRole.');
      expect(out).to.match(/key\s+<string> -required-/);
      expect(await ok('explain', 'kmc.metadata')).to.contain('ObjectMeta');
    });

    it('deletes a namespace with its contents', async () => {
      await ok('delete', 'namespace', 'tenant-b');
      expect((await k('get', 'ns', 'tenant-b')).stderr).to.contain('NotFound');
      expect(await ok('get', 'kmc', '-A', '-o', 'name')).to.equal('');
    });
  });
}
