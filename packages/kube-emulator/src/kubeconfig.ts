import { stringify } from 'yaml';

export interface KubeConfigOptions {
  /** Name of the cluster, user and context (default `kube-emulator`). */
  name?: string;
  /** The context's default namespace (default `default`). */
  namespace?: string;
  /** A bearer token, for emulators started with a token file. */
  token?: string;
}

/**
 * A kubeconfig (YAML) that points kubectl and client libraries at `server`. The server speaks plain
 * HTTP: `insecure-skip-tls-verify` is what @kubernetes/client-node requires before it talks HTTP.
 */
export function kubeConfigYaml(server: string, options: KubeConfigOptions = {}): string {
  const name = options.name ?? 'kube-emulator';
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster: { server, 'insecure-skip-tls-verify': true } }],
    contexts: [{ name, context: { cluster: name, user: name, namespace: options.namespace ?? 'default' } }],
    'current-context': name,
    preferences: {},
    users: [{ name, user: options.token === undefined ? {} : { token: options.token } }],
  });
}
