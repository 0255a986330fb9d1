import { request as httpsRequest } from 'node:https';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startKubeEmulator } from '@keymaster/kube-emulator';
import { ADMIN_USER, startRealKube, type TokenUser } from '../../../src/index.js';
import { tokenFileText } from '../../../src/kube/tokens.js';

/** One of the two API servers the same requests go to. */
export interface Side {
  readonly name: 'emulator' | 'real';
  readonly url: string;
  readonly issuer: string;
  readonly caCertificate: string;
  /** A kubeconfig (YAML) for this server with this bearer token. */
  kubeConfig(token: string): string;
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

export interface Sides {
  emulator: Side;
  real: Side;
  /** The same tokens on both servers: the admin (system:masters) and a tenant (no grants). */
  admin: string;
  tenant: string;
  stop(): Promise<void>;
}

export const TENANT: Omit<TokenUser, 'token'> = { user: 'tenant', uid: 'tenant-uid', groups: ['tenants'] };

/**
 * kube-apiserver (RBAC, a token file, `--service-account-issuer` its own https URL) and the
 * kube-emulator set up alike: TLS, RBAC, the same token file, the issuer its own https URL.
 */
export async function startSides(): Promise<Sides> {
  const tenant: TokenUser = { ...TENANT, token: randomBytes(16).toString('hex') };
  const real = await startRealKube({ tokens: [tenant] });
  const dir = await mkdtemp(join(tmpdir(), 'keymaster-sa-tokens-'));
  const tokenFile = join(dir, 'tokens.csv');
  await writeFile(
    tokenFile,
    tokenFileText([{ token: real.adminToken, user: ADMIN_USER, uid: ADMIN_USER, groups: ['system:masters'] }, tenant]),
  );
  const emulator = await startKubeEmulator({ tls: true, tokenAuthFile: tokenFile, authorization: 'RBAC' });
  return {
    emulator: {
      name: 'emulator',
      url: emulator.url,
      issuer: emulator.serviceAccountIssuer,
      caCertificate: emulator.caCertificate!,
      kubeConfig: (token) => emulator.kubeConfig({ token }),
    },
    real: {
      name: 'real',
      url: real.url,
      issuer: real.issuer,
      caCertificate: real.caCertificate,
      kubeConfig: (token) => real.kubeConfig({ token }),
    },
    admin: real.adminToken,
    tenant: tenant.token,
    stop: async () => {
      await emulator.stop();
      await real.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** One HTTPS request with a bearer token (none when undefined); the body parsed when it is JSON. */
export function send(
  side: Side,
  method: string,
  path: string,
  token: string | undefined,
  body?: unknown,
): Promise<Answer> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const request = httpsRequest(
      new URL(path, side.url),
      {
        method,
        ca: side.caCertificate,
        headers: {
          'user-agent': 'sa-tokens/1.0',
          ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
          ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            // not JSON: compared as text
          }
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: parsed });
        });
      },
    );
    request.on('error', reject);
    request.end(payload);
  });
}
