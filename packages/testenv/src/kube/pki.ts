import { execFile } from 'node:child_process';
import { generateKeyPair } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { FRONT_PROXY_CLIENT } from '@keymaster/kube-emulator';
import { TestEnvError } from '../errors.js';

export interface Pki {
  /** The CA that signed the serving certificate: what clients trust. */
  caFile: string;
  caCertificate: string;
  servingCertFile: string;
  servingKeyFile: string;
  /** The service-account token signing key pair (RS256, as most clusters use). */
  serviceAccountKeyFile: string;
  serviceAccountPublicKeyFile: string;
  /** The front-proxy CA (--requestheader-client-ca-file): aggregated servers trust what it signed. */
  frontProxyCaFile: string;
  frontProxyCaCertificate: string;
  /** The client certificate kube-apiserver proxies to aggregated servers with (CN front-proxy-client). */
  frontProxyClientCertFile: string;
  frontProxyClientKeyFile: string;
}

async function openssl(dir: string, args: string[]): Promise<void> {
  try {
    await promisify(execFile)('openssl', args, { cwd: dir });
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new TestEnvError(
      'ERR_KEYMASTER_TESTENV_OPENSSL',
      missing
        ? 'openssl is not on PATH'
        : `openssl ${args[0]} failed: ${(error as { stderr?: string }).stderr ?? String(error)}`,
      { hint: 'install the OpenSSL command line tool (apt-get install -y openssl)', cause: error },
    );
  }
}

/** A new P-256 key, `<name>.key`, and its certificate `<name>.crt` for 30 days, with these extensions. */
const generateCertificate = (
  dir: string,
  name: string,
  commonName: string,
  extensions: string[],
  ca?: string,
): Promise<void> =>
  openssl(dir, [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-days',
    '30',
    ...(ca === undefined ? [] : ['-CA', `${ca}.crt`, '-CAkey', `${ca}.key`]),
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.crt`,
    '-subj',
    `/CN=${commonName}`,
    ...extensions.flatMap((extension) => ['-addext', extension]),
  ]);

const CA = ['basicConstraints=critical,CA:TRUE', 'keyUsage=critical,keyCertSign,cRLSign'];
const LEAF = ['basicConstraints=critical,CA:FALSE', 'keyUsage=critical,digitalSignature'];

/**
 * Generates, in `dir`, what kube-apiserver serves and signs with, as envtest does: a CA (30 days), a
 * serving certificate it signed for 127.0.0.1 and localhost, and a service-account key pair; and, as
 * kubeadm does, a front-proxy CA and the client certificate it signed for proxying to aggregated
 * servers. Node has no X.509 generation API, so the certificates come from the openssl CLI.
 */
export async function generatePki(dir: string): Promise<Pki> {
  await generateCertificate(dir, 'ca', 'keymaster-testenv-ca', CA);
  await generateCertificate(
    dir,
    'serving',
    'localhost',
    ['subjectAltName=IP:127.0.0.1,DNS:localhost', ...LEAF, 'extendedKeyUsage=serverAuth'],
    'ca',
  );
  await generateCertificate(dir, 'front-proxy-ca', 'keymaster-testenv-front-proxy-ca', CA);
  await generateCertificate(
    dir,
    'front-proxy-client',
    FRONT_PROXY_CLIENT,
    [...LEAF, 'extendedKeyUsage=clientAuth'],
    'front-proxy-ca',
  );
  const keys = await promisify(generateKeyPair)('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  await writeFile(join(dir, 'sa.key'), keys.privateKey, { mode: 0o600 });
  await writeFile(join(dir, 'sa.pub'), keys.publicKey);
  return {
    caFile: join(dir, 'ca.crt'),
    caCertificate: await readFile(join(dir, 'ca.crt'), 'utf8'),
    servingCertFile: join(dir, 'serving.crt'),
    servingKeyFile: join(dir, 'serving.key'),
    serviceAccountKeyFile: join(dir, 'sa.key'),
    serviceAccountPublicKeyFile: join(dir, 'sa.pub'),
    frontProxyCaFile: join(dir, 'front-proxy-ca.crt'),
    frontProxyCaCertificate: await readFile(join(dir, 'front-proxy-ca.crt'), 'utf8'),
    frontProxyClientCertFile: join(dir, 'front-proxy-client.crt'),
    frontProxyClientKeyFile: join(dir, 'front-proxy-client.key'),
  };
}
