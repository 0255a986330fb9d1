import { ServerProcess } from './process.js';

/**
 * The controllers the kube-emulator also runs: the namespace controller (a deleted namespace is
 * emptied, then removed) and the garbage collector (ownerReferences). envtest runs neither.
 */
export const CONTROLLERS = ['namespace', 'garbagecollector'];

/** The user kube-controller-manager authenticates as; Kubernetes' bootstrap RBAC binds its role. */
export const CONTROLLER_MANAGER_USER = 'system:kube-controller-manager';

/** What it logs once both controllers watch everything they need (kube-controller-manager 1.33). */
const READY = ['"Caches are synced" controller="namespace"', '"Proceeding to collect garbage"'];

/**
 * Starts kube-controller-manager with `kubeconfig` (its own user's), as kubeadm does: each
 * controller under its own service account and RBAC role. Resolves once both controllers are running.
 */
export async function startControllerManager(
  binary: string,
  kubeconfig: string,
  logFile: string,
  timeoutMs: number,
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
    await server.waitReady(timeoutMs, () => READY.every((line) => server.log().includes(line)));
  } catch (error) {
    await server.stop();
    throw error;
  }
  return server;
}
