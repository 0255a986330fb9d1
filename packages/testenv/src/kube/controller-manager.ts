import { randomBytes } from 'node:crypto';
import { TestEnvError } from '../errors.js';
import type { AdminClient } from './client.js';
import { ServerProcess } from './process.js';

/**
 * The controllers the kube-emulator also runs: the namespace controller (a deleted namespace is
 * emptied, then removed), the garbage collector (ownerReferences) and the resourcequota controller
 * (a quota's status, without which quota admission limits nothing). envtest runs none.
 */
export const CONTROLLERS = ['namespace', 'garbagecollector', 'resourcequota'];

/** The user kube-controller-manager authenticates as; Kubernetes' bootstrap RBAC binds its role. */
export const CONTROLLER_MANAGER_USER = 'system:kube-controller-manager';

/** What the garbage collector logs once it watches everything it needs (the same from 1.33 to 1.37). */
const GARBAGE_COLLECTOR_READY = '"Proceeding to collect garbage"';

/**
 * Starts kube-controller-manager with `kubeconfig` (its own user's), as kubeadm does: each
 * controller under its own service account and RBAC role. Resolves once the controllers work:
 * the garbage collector says so; the namespace controller says nothing that tells it apart from
 * 1.35 on (its "Caches are synced" no longer names it), so a namespace is deleted and must go;
 * before that, a ResourceQuota in it must get its usage in status.
 */
export async function startControllerManager(
  binary: string,
  kubeconfig: string,
  logFile: string,
  timeoutMs: number,
  client: AdminClient,
): Promise<ServerProcess> {
  const server = await ServerProcess.start(
    'kube-controller-manager',
    binary,
    [
      `--kubeconfig=${kubeconfig}`,
      `--controllers=${CONTROLLERS.join(',')}`,
      '--use-service-account-credentials=true',
      '--leader-elect=false',
      // No serving port: nothing reads its metrics or health, and it needs no certificates then.
      '--secure-port=0',
    ],
    logFile,
  );
  try {
    await server.waitReady(timeoutMs, () => server.log().includes(GARBAGE_COLLECTOR_READY));
    const probe = `testenv-namespace-controller-${randomBytes(4).toString('hex')}`;
    const created = await client.send('POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: probe },
    });
    const quotas = `/api/v1/namespaces/${probe}/resourcequotas`;
    const quota = await client.send('POST', quotas, {
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: { name: probe },
      spec: { hard: { 'count/configmaps': '1' } },
    });
    if (created.status === 201 && quota.status === 201) {
      await server.waitReady(timeoutMs, async () => {
        const read = await client.send('GET', `${quotas}/${probe}`);
        return read.status === 200 && read.body.includes('"used"');
      });
    }
    const deleted = await client.send('DELETE', `/api/v1/namespaces/${probe}`);
    if (created.status !== 201 || quota.status !== 201 || deleted.status !== 200) {
      throw new TestEnvError(
        'ERR_KEYMASTER_TESTENV_START',
        `kube-controller-manager's probe: creating the namespace ${probe}, a ResourceQuota in it and deleting it answered ${created.status}, ${quota.status} and ${deleted.status}: ${deleted.body}`,
        { hint: "kube-apiserver's log says why" },
      );
    }
    await server.waitReady(
      timeoutMs,
      async () => (await client.send('GET', `/api/v1/namespaces/${probe}`)).status === 404,
    );
  } catch (error) {
    await server.stop();
    throw error;
  }
  return server;
}
