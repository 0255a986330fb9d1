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
 * A kubeconfig (YAML) that points kubectl and client libraries at `server`. Over TLS it trusts the
 * emulator's own certificate (`caPem`); over plain HTTP it says `insecure-skip-tls-verify`, which
 * @kubernetes/client-node requires before it talks HTTP.
 */
export function kubeConfigYaml(server: string, options: KubeConfigOptions = {}, caPem?: string): string {
  const name = options.name ?? 'kube-emulator';
  const trust =
    caPem === undefined
      ? { 'insecure-skip-tls-verify': true }
      : { 'certificate-authority-data': Buffer.from(caPem).toString('base64') };
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster: { server, ...trust } }],
    contexts: [{ name, context: { cluster: name, user: name, namespace: options.namespace ?? 'default' } }],
    'current-context': name,
    preferences: {},
    users: [{ name, user: options.token === undefined ? {} : { token: options.token } }],
  });
}
