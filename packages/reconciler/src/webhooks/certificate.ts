import { watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { KeymasterError } from '@keymaster/api';

/** controller-runtime's names for the serving certificate files, as a kubernetes.io/tls Secret holds them. */
export const CERT_FILE = 'tls.crt';
export const KEY_FILE = 'tls.key';
/** The CA of a cert-manager or hand-made Secret; injected as caBundle when present (else tls.crt). */
export const CA_FILE = 'ca.crt';

export interface ServingCertificate {
  cert: string;
  key: string;
  /** The PEM a client must trust: ca.crt, or the certificate itself when it is self-signed. */
  ca: string;
}

export class WebhookCertificateError extends KeymasterError {
  constructor(certDir: string, cause: string) {
    super('ERR_KEYMASTER_WEBHOOK_CERTIFICATE', `no serving certificate in --webhook-cert-dir=${certDir}: ${cause}`, {
      hint: `Mount a kubernetes.io/tls Secret there (${CERT_FILE}, ${KEY_FILE}, optionally ${CA_FILE}), e.g. one cert-manager issues; see docs/operations.md#admission-webhooks.`,
    });
  }
}

export async function readCertificate(certDir: string): Promise<ServingCertificate> {
  try {
    const [cert, key] = await Promise.all([
      readFile(join(certDir, CERT_FILE), 'utf8'),
      readFile(join(certDir, KEY_FILE), 'utf8'),
    ]);
    const ca = await readFile(join(certDir, CA_FILE), 'utf8').catch(() => cert);
    return { cert, key, ca };
  } catch (error) {
    throw new WebhookCertificateError(certDir, (error as Error).message);
  }
}

/**
 * Calls `onChange` with the certificate each time the files change: a Secret volume swaps its files
 * at once (a `..data` symlink), which the folder's watch sees; a poll catches what a watch misses.
 * A half-written pair is skipped until both files read and differ from the last certificate.
 */
export function watchCertificate(
  certDir: string,
  current: ServingCertificate,
  onChange: (certificate: ServingCertificate) => void,
  onError: (error: Error) => void,
  pollMs = 10_000,
): () => void {
  let last = current;
  let reading = false;
  const check = () => {
    if (reading) return;
    reading = true;
    readCertificate(certDir)
      .then((next) => {
        if (next.cert === last.cert && next.key === last.key && next.ca === last.ca) return;
        last = next;
        onChange(next);
      }, onError)
      .finally(() => (reading = false));
  };
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(certDir, check);
    watcher.on('error', onError);
  } catch (error) {
    onError(error as Error);
  }
  const timer = setInterval(check, pollMs);
  timer.unref();
  return () => {
    clearInterval(timer);
    watcher?.close();
  };
}
