import { join } from 'node:path';
import type { Pki } from './pki.js';

export interface ApiserverConfig {
  dir: string;
  pki: Pki;
  etcdUrl: string;
  port: number;
  /** `--service-account-issuer`, also the only `--api-audiences`. */
  issuer: string;
  tokenFile: string;
}

/** The flags envtest starts kube-apiserver with, plus real RBAC and service-account token issuance. */
export function apiserverArgs({ dir, pki, etcdUrl, port, issuer, tokenFile }: ApiserverConfig): string[] {
  return [
    `--etcd-servers=${etcdUrl}`,
    `--secure-port=${port}`,
    '--bind-address=127.0.0.1',
    '--advertise-address=127.0.0.1',
    `--cert-dir=${join(dir, 'apiserver-certs')}`,
    `--tls-cert-file=${pki.servingCertFile}`,
    `--tls-private-key-file=${pki.servingKeyFile}`,
    `--client-ca-file=${pki.caFile}`,
    '--authorization-mode=Node,RBAC',
    `--token-auth-file=${tokenFile}`,
    `--service-account-issuer=${issuer}`,
    `--service-account-key-file=${pki.serviceAccountPublicKeyFile}`,
    `--service-account-signing-key-file=${pki.serviceAccountKeyFile}`,
    `--api-audiences=${issuer}`,
    '--service-cluster-ip-range=10.0.0.0/24',
    // No kubelet: nothing would serve the `kubernetes` Service's endpoints.
    '--endpoint-reconciler-type=none',
  ];
}
