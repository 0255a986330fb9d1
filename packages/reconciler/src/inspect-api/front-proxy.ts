import { X509Certificate } from 'node:crypto';
import type { PeerCertificate, TLSSocket } from 'node:tls';
import { CoreV1Api, type KubeConfig, type V1ConfigMap } from '@kubernetes/client-node';

/** Where kube-apiserver publishes how it authenticates to aggregated servers (kube-system). */
export const FRONT_PROXY_CONFIG_MAP = 'extension-apiserver-authentication';

/** The user kube-apiserver vouches for, as an aggregated server reads it (requestheader authentication). */
export interface FrontProxyUser {
  username: string;
  uid?: string;
  groups: string[];
  extra: Record<string, string[]>;
}

/** How kube-apiserver authenticates to us: its front-proxy CA, the names it may use, the headers it sets. */
export interface FrontProxyConfig {
  cas: X509Certificate[];
  allowedNames: string[];
  usernameHeaders: string[];
  uidHeaders: string[];
  groupHeaders: string[];
  extraPrefixes: string[];
}

const list = (text: string | undefined, fallback: string[]): string[] => {
  if (text === undefined || text === '') return fallback;
  const parsed = JSON.parse(text) as unknown;
  return Array.isArray(parsed) ? parsed.map(String) : fallback;
};

/** The certificates of a PEM bundle. */
function certificatesOf(pem: string): X509Certificate[] {
  return (pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []).map(
    (block) => new X509Certificate(block),
  );
}

/** The ConfigMap's keys as kube-apiserver writes them (JSON lists); undefined when it has no front-proxy CA. */
export function frontProxyConfigOf(configMap: V1ConfigMap | undefined): FrontProxyConfig | undefined {
  const data = configMap?.data ?? {};
  const cas = certificatesOf(data['requestheader-client-ca-file'] ?? '');
  if (cas.length === 0) return undefined;
  return {
    cas,
    allowedNames: list(data['requestheader-allowed-names'], []),
    usernameHeaders: list(data['requestheader-username-headers'], ['X-Remote-User']),
    uidHeaders: list(data['requestheader-uid-headers'], []),
    groupHeaders: list(data['requestheader-group-headers'], ['X-Remote-Group']),
    extraPrefixes: list(data['requestheader-extra-headers-prefix'], ['X-Remote-Extra-']),
  };
}

const commonName = (certificate: X509Certificate): string | undefined =>
  /(?:^|\n)CN=([^\n]*)/.exec(certificate.subject)?.[1];

/**
 * Whether the TLS client is kube-apiserver's front proxy: a certificate the front-proxy CA issued,
 * valid now, with an allowed common name (any, when the list is empty, as kube-apiserver means it).
 * Without this check anyone who reaches the port could name itself in X-Remote-User.
 */
export function isFrontProxy(socket: TLSSocket, config: FrontProxyConfig, now: Date): boolean {
  // An empty object when the client showed no certificate.
  const peer: Partial<PeerCertificate> = socket.getPeerCertificate();
  if (!peer.raw) return false;
  const certificate = new X509Certificate(peer.raw);
  if (now < new Date(certificate.validFrom) || now > new Date(certificate.validTo)) return false;
  const issued = config.cas.some((ca) => certificate.checkIssued(ca) && certificate.verify(ca.publicKey));
  if (!issued) return false;
  const name = commonName(certificate);
  return config.allowedNames.length === 0 || (name !== undefined && config.allowedNames.includes(name));
}

/** A request's headers, each with all its values (node's `headersDistinct`: a repeated header is not joined). */
export type DistinctHeaders = Record<string, string[] | undefined>;

const values = (headers: DistinctHeaders, name: string): string[] => headers[name.toLowerCase()] ?? [];

/** The user the front proxy names in its headers; undefined when it names none. */
export function frontProxyUser(headers: DistinctHeaders, config: FrontProxyConfig): FrontProxyUser | undefined {
  const first = (names: string[]) => names.flatMap((name) => values(headers, name)).find((value) => value !== '');
  const username = first(config.usernameHeaders);
  if (username === undefined) return undefined;
  const uid = first(config.uidHeaders);
  const groups = config.groupHeaders.flatMap((name) => values(headers, name));
  const extra: Record<string, string[]> = {};
  for (const prefix of config.extraPrefixes.map((text) => text.toLowerCase()))
    for (const [header, value] of Object.entries(headers)) {
      if (!header.startsWith(prefix) || value === undefined) continue;
      // Extra keys are URL-escaped in the header's name (kube-apiserver's unescapeExtraKey).
      const key = decodeURIComponent(header.slice(prefix.length));
      (extra[key] ??= []).push(...value);
    }
  return { username, ...(uid === undefined ? {} : { uid }), groups, extra };
}

/** How often, at most, a client certificate the front-proxy CA does not verify makes us read the ConfigMap again. */
const REREAD_MS = 30_000;

/**
 * Reads kube-apiserver's front-proxy settings once, and again when a certificate fails them (its CA
 * rotated), at most every REREAD_MS: a stranger knocking costs no API read per request.
 */
export function frontProxyReader(
  kubeConfig: KubeConfig,
  nowMs: () => number,
): (refresh: boolean) => Promise<FrontProxyConfig | undefined> {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  let current: Promise<FrontProxyConfig | undefined> | undefined;
  let readAt = -Infinity;
  return (refresh) => {
    if (!current || (refresh && nowMs() - readAt >= REREAD_MS)) {
      readAt = nowMs();
      current = core
        .readNamespacedConfigMap({ namespace: 'kube-system', name: FRONT_PROXY_CONFIG_MAP })
        .then(frontProxyConfigOf, (error: unknown) => {
          current = undefined;
          throw error;
        });
    }
    return current;
  };
}
