import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const openssl = (dir: string, args: string[]) => promisify(execFile)('openssl', args, { cwd: dir });

/**
 * A CA named `caName` and a serving certificate it signed for 127.0.0.1 and localhost, written to
 * `certDir` as a kubernetes.io/tls Secret volume holds them (`tls.crt`, `tls.key`, `ca.crt`), for an
 * admission webhook server under test. Node cannot make X.509 certificates: openssl does, as for the
 * control plane's PKI. Returns the CA's PEM (what a webhook's caBundle must hold).
 */
export async function writeServingCertificate(certDir: string, caName: string): Promise<{ ca: string }> {
  const work = await mkdtemp(join(tmpdir(), 'keymaster-serving-pki-'));
  try {
    const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
    await openssl(work, [
      'req',
      '-x509',
      ...ec,
      '-days',
      '2',
      '-keyout',
      'ca.key',
      '-out',
      'ca.crt',
      '-subj',
      `/CN=${caName}`,
    ]);
    await openssl(work, ['req', ...ec, '-keyout', 'tls.key', '-out', 'tls.csr', '-subj', '/CN=webhook']);
    await writeFile(join(work, 'san.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
    await openssl(work, [
      'x509',
      '-req',
      '-in',
      'tls.csr',
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-days',
      '2',
      '-extfile',
      'san.ext',
      '-out',
      'tls.crt',
    ]);
    const names = ['ca.crt', 'tls.crt', 'tls.key'];
    const files = await Promise.all(names.map((name) => readFile(join(work, name), 'utf8')));
    await Promise.all(names.map((name, index) => writeFile(join(certDir, name), files[index]!)));
    return { ca: files[0]! };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
