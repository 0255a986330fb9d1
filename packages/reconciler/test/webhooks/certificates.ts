import { execFile } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const openssl = (dir: string, args: string[]) => promisify(execFile)('openssl', args, { cwd: dir });

/**
 * A CA named `name` and a serving certificate it signed for 127.0.0.1, written to `certDir` as a
 * kubernetes.io/tls Secret volume holds them (tls.crt, tls.key, ca.crt). Node cannot make X.509
 * certificates, so openssl does, as for testenv's control plane.
 */
export async function writeServingCertificate(certDir: string, name: string): Promise<{ ca: string }> {
  const work = await mkdtemp(join(tmpdir(), 'keymaster-webhook-pki-'));
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
    `/CN=${name}`,
  ]);
  await openssl(work, ['req', ...ec, '-keyout', 'tls.key', '-out', 'tls.csr', '-subj', '/CN=keymaster-webhook']);
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
  const files = await Promise.all(['ca.crt', 'tls.crt', 'tls.key'].map((file) => readFile(join(work, file), 'utf8')));
  // Written as a Secret volume updates: all files at once, each replaced whole.
  await Promise.all(
    ['ca.crt', 'tls.crt', 'tls.key'].map((file, index) => writeFile(join(certDir, file), files[index]!)),
  );
  return { ca: files[0]! };
}
