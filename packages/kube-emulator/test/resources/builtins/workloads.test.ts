import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { AppsV1Api, CoreV1Api, PatchStrategy, setHeaderOptions, type V1Deployment } from '@kubernetes/client-node';
import { expect } from 'chai';
import { call, startTestCluster, type TestCluster } from '../../helpers/emulator.js';
import { failure } from '../../helpers/failure.js';
import { kubectl, kubectlBinary } from '../../helpers/kubectl.js';

const LABELS = { app: 'web' };

const deployment = (image: string): V1Deployment => ({
  metadata: { name: 'web', labels: LABELS },
  spec: {
    replicas: 2,
    selector: { matchLabels: LABELS },
    template: {
      metadata: { labels: LABELS },
      spec: {
        containers: [
          {
            name: 'web',
            image,
            ports: [{ name: 'http', containerPort: 8080 }],
            env: [{ name: 'MODE', value: 'a' }],
            securityContext: { readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } },
          },
          { name: 'sidecar', image: 'sidecar:1' },
        ],
      },
    },
  },
});

describe('apps/v1 Deployment and v1 Service (stored, no controller)', function () {
  this.timeout(30_000);
  let cluster: TestCluster;
  let apps: AppsV1Api;
  let core: CoreV1Api;
  const ok = async (minor: number, ...args: string[]): Promise<string> => {
    const result = await kubectl(kubectlBinary(minor), cluster.kubeconfig, args);
    expect(result.code, `kubectl ${args.join(' ')}: ${result.stderr}`).to.equal(0);
    return result.stdout;
  };

  before(async () => {
    cluster = await startTestCluster();
    apps = cluster.kubeConfig.makeApiClient(AppsV1Api);
    core = cluster.kubeConfig.makeApiClient(CoreV1Api);
  });
  after(() => cluster.stop());

  it('stores a Deployment with the apiserver defaults and a generation', async () => {
    const created = await apps.createNamespacedDeployment({ namespace: 'default', body: deployment('web:1') });
    expect(created.metadata?.generation).to.equal(1);
    expect(created.spec?.strategy).to.deep.equal({
      type: 'RollingUpdate',
      rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' },
    });
    expect(created.spec?.revisionHistoryLimit).to.equal(10);
    expect(created.spec?.progressDeadlineSeconds).to.equal(600);
    const container = created.spec?.template.spec?.containers[0];
    expect(container?.ports).to.deep.equal([{ name: 'http', containerPort: 8080, protocol: 'TCP' }]);
    // Fields the emulator does not describe are kept as given.
    expect(container?.securityContext).to.deep.equal({ readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } });
  });

  it('merges containers by name in a strategic merge patch and bumps the generation', async () => {
    const patched = await apps.patchNamespacedDeployment(
      {
        namespace: 'default',
        name: 'web',
        body: { spec: { template: { spec: { containers: [{ name: 'web', env: [{ name: 'EXTRA', value: 'b' }] }] } } } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
    );
    const containers = patched.spec?.template.spec?.containers ?? [];
    expect(containers.map((item) => item.name)).to.deep.equal(['web', 'sidecar']);
    // As kube-apiserver merges: the patch's items first, the live list's others after them.
    expect(containers[0]?.env?.map((item) => item.name)).to.deep.equal(['EXTRA', 'MODE']);
    expect(containers[0]?.image).to.equal('web:1');
    expect(patched.metadata?.generation).to.equal(2);
  });

  it('requires a selector and a template', async () => {
    const refused = await failure(
      apps.createNamespacedDeployment({
        namespace: 'default',
        body: { metadata: { name: 'empty' }, spec: {} } as never,
      }),
    );
    expect(refused.code).to.equal(422);
    expect(refused.status.message).to.contain('spec.selector: Required value');
    expect(refused.status.message).to.contain('spec.template: Required value');
  });

  it('stores a Service with its defaults and prints it as kubectl does', async () => {
    const service = await core.createNamespacedService({
      namespace: 'default',
      body: {
        metadata: { name: 'web' },
        spec: { selector: LABELS, ports: [{ name: 'http', port: 80, targetPort: 'http' }] },
      },
    });
    expect(service.spec?.type).to.equal('ClusterIP');
    expect(service.spec?.sessionAffinity).to.equal('None');
    expect(service.spec?.ports).to.deep.equal([{ name: 'http', port: 80, targetPort: 'http', protocol: 'TCP' }]);
    // As kube-apiserver allocates and defaults them (kubeadm's default service range here).
    const ip = service.spec!.clusterIP!;
    expect(ip).to.match(/^10\.(9[6-9]|10[0-9]|11[01])\.\d+\.\d+$/);
    expect(service.spec).to.deep.include({
      clusterIPs: [ip],
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
      internalTrafficPolicy: 'Cluster',
    });
    expect(service.status).to.deep.equal({ loadBalancer: {} });
    const replaced = await core.replaceNamespacedService({
      namespace: 'default',
      name: 'web',
      body: { metadata: { name: 'web' }, spec: { ports: [{ port: 8080 }] } },
    });
    expect(replaced.spec?.clusterIP, 'kept when the update leaves it out').to.equal(ip);
    expect(replaced.spec?.ports).to.deep.equal([{ port: 8080, targetPort: 8080, protocol: 'TCP' }]);
    const wide = await ok(33, 'get', 'svc', 'web', '-o', 'wide');
    expect(wide).to.match(/^NAME\s+TYPE\s+CLUSTER-IP\s+EXTERNAL-IP\s+PORT\(S\)\s+AGE\s+SELECTOR$/m);
    expect(wide).to.match(
      new RegExp(`^web\\s+ClusterIP\\s+${ip.replaceAll('.', '\\.')}\\s+<none>\\s+8080/TCP\\s+\\S+\\s+<none>$`, 'm'),
    );
    const refused = await failure(
      core.createNamespacedService({
        namespace: 'default',
        body: { metadata: { name: 'bad' }, spec: { ports: [{ port: 70000 }] } },
      }),
    );
    expect(refused.status.message).to.equal(
      'Service "bad" is invalid: [spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive, spec.ports[0].targetPort: Invalid value: 70000: must be between 1 and 65535, inclusive]',
    );
  });

  it('defaults a Deployment and its pod template as kube-apiserver does, and checks its selector', async () => {
    const created = (
      await call(cluster.emulator, 'POST', '/apis/apps/v1/namespaces/default/deployments', {
        metadata: { name: 'defaults' },
        spec: {
          selector: { matchLabels: LABELS },
          strategy: { rollingUpdate: { maxSurge: 2 } },
          template: {
            metadata: { labels: LABELS },
            spec: {
              containers: [
                { name: 'a', image: 'nginx' },
                { name: 'b', image: 'nginx:1.27' },
              ],
            },
          },
        },
      })
    ).body as {
      spec: Record<string, unknown> & {
        template: { metadata: unknown; spec: Record<string, unknown> & { containers: Record<string, unknown>[] } };
      };
      status: unknown;
    };
    expect(created.spec.strategy).to.deep.equal({
      type: 'RollingUpdate',
      rollingUpdate: { maxSurge: 2, maxUnavailable: '25%' },
    });
    // No zero creationTimestamp: left out (omitzero) from 1.35 on.
    expect(created.spec.template.metadata).to.deep.equal({ labels: LABELS });
    expect(created.spec.template.spec).to.deep.include({
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      securityContext: {},
      schedulerName: 'default-scheduler',
    });
    expect(created.spec.template.spec.containers.map((container) => container.imagePullPolicy)).to.deep.equal([
      'Always',
      'IfNotPresent',
    ]);
    expect(created.spec.template.spec.containers[0]).to.deep.include({
      resources: {},
      terminationMessagePath: '/dev/termination-log',
      terminationMessagePolicy: 'File',
    });
    expect(created.status).to.deep.equal({});
    const mismatched = await call(cluster.emulator, 'POST', '/apis/apps/v1/namespaces/default/deployments', {
      metadata: { name: 'mismatched' },
      spec: {
        selector: { matchLabels: { app: 'other' } },
        template: { metadata: { labels: { b: '2', a: '1' } }, spec: { containers: [{ name: 'a', image: 'a' }] } },
      },
    });
    expect((mismatched.body as { message: string }).message).to.equal(
      'Deployment.apps "mismatched" is invalid: spec.template.metadata.labels: Invalid value: {"a":"1","b":"2"}: `selector` does not match template `labels`',
    );
  });

  for (const minor of [33, 27]) {
    it(`works with kubectl 1.${minor}: api-resources, apply (created, unchanged, configured), get -o wide`, async () => {
      const resources = await ok(minor, 'api-resources');
      expect(resources).to.match(/^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment$/m);
      expect(resources).to.match(/^services\s+svc\s+v1\s+true\s+Service$/m);
      const manifest = (image: string) =>
        JSON.stringify({
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: `app${minor}` },
          spec: deployment(image).spec,
        });
      const path = join(dirname(cluster.kubeconfig), `app${minor}.json`);
      writeFileSync(path, manifest('web:1'));
      expect(await ok(minor, 'apply', '-f', path)).to.contain(`deployment.apps/app${minor} created`);
      expect(await ok(minor, 'apply', '-f', path)).to.contain(`deployment.apps/app${minor} unchanged`);
      writeFileSync(path, manifest('web:2'));
      expect(await ok(minor, 'apply', '-f', path)).to.contain(`deployment.apps/app${minor} configured`);
      const wide = await ok(minor, 'get', 'deploy', `app${minor}`, '-o', 'wide');
      expect(wide).to.match(/^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR$/m);
      expect(wide).to.match(
        new RegExp(`^app${minor}\\s+0/2\\s+0\\s+0\\s+\\S+\\s+web,sidecar\\s+web:2,sidecar:1\\s+app=web$`, 'm'),
      );
      expect(await ok(minor, 'get', 'all', '-o', 'name')).to.contain(`deployment.apps/app${minor}`);
    });
  }
});
