import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startKubeEmulator } from '@keymaster/kube-emulator';
import { REPO_ROOT } from './controller-process.js';

/** A user of the API server, as a line of kube-apiserver's `--token-auth-file`. */
export interface ApiUser {
  token: string;
  user: string;
  uid: string;
  groups?: string[];
}

/** What the RBAC tests need of an API server: kubeconfigs for its users, and stopping it. */
export interface ApiServer {
  kubeConfig(options: { token: string }): string;
  writeKubeConfig(path: string, options: { token: string }): Promise<void>;
  stop(): Promise<void>;
}

const csvLine = ({ token, user, uid, groups = [] }: ApiUser) =>
  [token, user, uid, ...(groups.length > 0 ? [`"${groups.join(',')}"`] : [])].join(',');

/**
 * An API server with Keymaster's CRDs that knows `users` by their tokens and enforces RBAC. The
 * backend is chosen here and nowhere else: today the kube-emulator (`--authorization-mode RBAC`);
 * the real kube-apiserver (`startRealKube` of @keymaster/testenv) takes the same users and CRDs.
 */
export async function startRbacApiServer(dir: string, users: ApiUser[]): Promise<ApiServer> {
  const tokenAuthFile = join(dir, 'tokens.csv');
  await writeFile(tokenAuthFile, `${users.map(csvLine).join('\n')}\n`);
  return startKubeEmulator({ crds: join(REPO_ROOT, 'deploy/crds'), tokenAuthFile, authorization: 'RBAC' });
}
