import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startKubeEmulator } from '@keymaster/kube-emulator';
import { ADMIN_USER, startRealKube, type TokenUser } from '../../../src/index.js';
import { tokenFileText } from '../../../src/kube/tokens.js';
import type { Target } from './http.js';
import type { Who } from './sequence.js';

export const CRDS = fileURLToPath(new URL('../../../../../deploy/crds', import.meta.url));

/** The tenant: no group that RBAC grants anything to; sequences give it Roles. */
export const TENANT: Omit<TokenUser, 'token'> = {
  user: 'fidelity-tenant',
  uid: 'fidelity-tenant',
  groups: ['fidelity-tenants'],
};

export interface Servers {
  emulator: Target;
  real: Target;
  /** The bearer token of each user (the same on both servers); undefined sends none. */
  tokens: Record<Who, string | undefined>;
  stop(): Promise<void>;
}

/**
 * Starts the real kube-apiserver + etcd (+ kube-controller-manager's namespace and garbage
 * collector controllers) and the kube-emulator with the same CRDs and the same token file (the
 * admin in system:masters, the tenant), the emulator with RBAC on, as the real one.
 */
export async function startServers(log: (line: string) => void = () => undefined): Promise<Servers> {
  const tenant: TokenUser = { ...TENANT, token: randomBytes(16).toString('hex') };
  const real = await startRealKube({ crds: CRDS, tokens: [tenant], controllerManager: true, log });
  const dir = await mkdtemp(join(tmpdir(), 'keymaster-fidelity-'));
  try {
    const tokenFile = join(dir, 'tokens.csv');
    await writeFile(
      tokenFile,
      tokenFileText([
        { token: real.adminToken, user: ADMIN_USER, uid: ADMIN_USER, groups: ['system:masters'] },
        tenant,
      ]),
    );
    const emulator = await startKubeEmulator({ crds: CRDS, tokenAuthFile: tokenFile, authorization: 'RBAC' });
    return {
      emulator: { name: 'emulator', url: emulator.url, ca: undefined },
      real: { name: 'real', url: real.url, ca: real.caCertificate },
      tokens: { admin: real.adminToken, tenant: tenant.token, anonymous: undefined },
      stop: async () => {
        await emulator.stop();
        await real.stop();
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await real.stop();
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}
