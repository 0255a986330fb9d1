import { join } from 'node:path';
import { FRONT_PROXY_CLIENT } from '@keymaster/kube-emulator';
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

/**
 * The flags envtest starts kube-apiserver with, plus real RBAC, service-account token issuance and
 * kubeadm's front proxy for aggregated API servers.
 */
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
    `--requestheader-client-ca-file=${pki.frontProxyCaFile}`,
    `--proxy-client-cert-file=${pki.frontProxyClientCertFile}`,
    `--proxy-client-key-file=${pki.frontProxyClientKeyFile}`,
    `--requestheader-allowed-names=${FRONT_PROXY_CLIENT}`,
    '--requestheader-username-headers=X-Remote-User',
    '--requestheader-group-headers=X-Remote-Group',
    '--requestheader-extra-headers-prefix=X-Remote-Extra-',
    '--service-cluster-ip-range=10.0.0.0/24',
    // No kubelet: nothing would serve the `kubernetes` Service's endpoints.
    '--endpoint-reconciler-type=none',
  ];
}
