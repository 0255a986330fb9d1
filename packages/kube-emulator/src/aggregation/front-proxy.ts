import { issueCertificate, type Certificate } from '../auth/certificate.js';
import type { JsonObject } from '../util/json.js';

/** The headers an aggregated server reads the user from, as kubeadm configures kube-apiserver. */
export const REQUEST_HEADERS = {
  username: 'X-Remote-User',
  uid: 'X-Remote-Uid',
  group: 'X-Remote-Group',
  extraPrefix: 'X-Remote-Extra-',
};

/** The front proxy's client certificate's common name: the only name aggregated servers accept. */
export const FRONT_PROXY_CLIENT = 'front-proxy-client';

/**
 * The front-proxy PKI (kube-apiserver's --requestheader-client-ca-file and --proxy-client-cert-file):
 * a CA, and the client certificate it signed, which the emulator presents to aggregated servers.
 */
export class FrontProxy {
  readonly ca: Certificate = issueCertificate({ commonName: 'front-proxy-ca', ca: true });
  readonly client: Certificate = issueCertificate({
    commonName: FRONT_PROXY_CLIENT,
    clientAuth: true,
    issuer: this.ca,
  });

  /**
   * kube-system/extension-apiserver-authentication, as kube-apiserver publishes it for aggregated
   * servers (no client-ca-file: the emulator authenticates no client certificates).
   */
  configMap(): JsonObject {
    const list = (value: string): string => JSON.stringify([value]);
    return {
      metadata: { name: 'extension-apiserver-authentication', namespace: 'kube-system' },
      data: {
        'requestheader-allowed-names': list(FRONT_PROXY_CLIENT),
        'requestheader-client-ca-file': this.ca.cert,
        'requestheader-extra-headers-prefix': list(REQUEST_HEADERS.extraPrefix),
        'requestheader-group-headers': list(REQUEST_HEADERS.group),
        'requestheader-username-headers': list(REQUEST_HEADERS.username),
      },
    };
  }
}
