import { get, request } from 'node:https';
import { startKubeEmulator, type KubeEmulator } from '@keymaster/kube-emulator';

/**
 * A kube-emulator over HTTPS (so its service-account issuer is its own https URL, as IAM requires),
 * with the tenants' namespaces and ServiceAccounts. The aws-emulator only ever meets it over HTTP:
 * tokens come from its TokenRequest, keys from its OIDC discovery.
 */
export async function startCluster(accounts: readonly [namespace: string, name: string][]): Promise<KubeEmulator> {
  const kube = await startKubeEmulator({ tls: true });
  for (const [namespace, name] of accounts) {
    await post(kube, '/api/v1/namespaces', { metadata: { name: namespace } }).catch(() => undefined);
    await post(kube, `/api/v1/namespaces/${namespace}/serviceaccounts`, { metadata: { name } });
  }
  return kube;
}

function post(kube: KubeEmulator, path: string, body: unknown): Promise<unknown> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const call = request(
      new URL(path, kube.url),
      { method: 'POST', ca: kube.caCertificate, headers: { 'content-type': 'application/json' } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString());
          if ((response.statusCode ?? 0) >= 300) reject(new Error(`${path}: ${JSON.stringify(parsed)}`));
          else resolve(parsed);
        });
      },
    );
    call.on('error', reject);
    call.end(payload);
  });
}

/** The cluster's JWKS, read as a world file would hold it. */
export function keySetOf(kube: KubeEmulator): Promise<unknown> {
  return new Promise((resolve, reject) => {
    get(new URL('/openid/v1/jwks', kube.url), { ca: kube.caCertificate }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString())));
    }).on('error', reject);
  });
}

/** A token of `namespace/name` from the cluster's TokenRequest API (audience sts.amazonaws.com unless given). */
export async function tokenOf(
  kube: KubeEmulator,
  namespace: string,
  name: string,
  spec: { audiences?: string[]; expirationSeconds?: number } = {},
): Promise<string> {
  const answer = (await post(kube, `/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`, {
    spec: { audiences: ['sts.amazonaws.com'], ...spec },
  })) as { status: { token: string } };
  return answer.status.token;
}
