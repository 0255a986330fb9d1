import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const openssl = (dir: string, args: string[]) => promisify(execFile)('openssl', args, { cwd: dir });

/**
 * A CA named `caName` and a serving certificate it signed for 127.0.0.1, localhost and `dnsNames`,
 * written to `certDir` as a kubernetes.io/tls Secret volume holds them (`tls.crt`, `tls.key`,
 * `ca.crt`), for an admission webhook or an aggregated API server under test (the API server checks
 * an APIService's backend as `<service>.<namespace>.svc`: give that name). Node cannot make X.509
 * certificates: openssl does, as for the control plane's PKI. Returns the CA's PEM (what a webhook's
 * or an APIService's caBundle must hold).
 */
export async function writeServingCertificate(
  certDir: string,
  caName: string,
  dnsNames: string[] = [],
): Promise<{ ca: string }> {
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
    const names = ['IP:127.0.0.1', 'DNS:localhost', ...dnsNames.map((name) => `DNS:${name}`)];
    await writeFile(join(work, 'san.ext'), `subjectAltName=${names.join(',')}\n`);
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
    const outputs = ['ca.crt', 'tls.crt', 'tls.key'];
    const files = await Promise.all(outputs.map((name) => readFile(join(work, name), 'utf8')));
    await Promise.all(outputs.map((name, index) => writeFile(join(certDir, name), files[index]!)));
    return { ca: files[0]! };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
