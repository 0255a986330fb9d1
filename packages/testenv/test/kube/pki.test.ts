import { expect } from 'chai';
import { createPrivateKey, createPublicKey, sign, verify, X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestEnvError } from '../../src/errors.js';
import { generatePki } from '../../src/kube/pki.js';

describe('generatePki', () => {
  let dir: string;
  beforeEach(async () => (dir = await mkdtemp(join(tmpdir(), 'testenv-pki-'))));
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('makes a CA and a serving certificate it signed, for 127.0.0.1 and localhost', async () => {
    const pki = await generatePki(dir);
    const ca = new X509Certificate(pki.caCertificate);
    const serving = new X509Certificate(await readFile(pki.servingCertFile));
    expect(ca.ca).to.equal(true);
    expect(serving.ca).to.equal(false);
    expect(serving.verify(ca.publicKey)).to.equal(true);
    expect(serving.checkIP('127.0.0.1')).to.equal('127.0.0.1');
    expect(serving.checkHost('localhost')).to.equal('localhost');
    expect(serving.checkHost('example.com')).to.equal(undefined);
    expect(serving.checkPrivateKey(createPrivateKey(await readFile(pki.servingKeyFile)))).to.equal(true);
    expect(await readFile(pki.caFile, 'utf8')).to.equal(pki.caCertificate);
  });

  it('makes a front-proxy CA and the client certificate it signed, for front-proxy-client only', async () => {
    const pki = await generatePki(dir);
    const ca = new X509Certificate(pki.frontProxyCaCertificate);
    const client = new X509Certificate(await readFile(pki.frontProxyClientCertFile));
    expect(ca.ca).to.equal(true);
    expect(client.verify(ca.publicKey)).to.equal(true);
    expect(client.verify(new X509Certificate(pki.caCertificate).publicKey)).to.equal(false);
    expect(client.subject).to.equal('CN=front-proxy-client');
    expect(client.keyUsage).to.deep.equal(['1.3.6.1.5.5.7.3.2']);
    expect(client.checkPrivateKey(createPrivateKey(await readFile(pki.frontProxyClientKeyFile)))).to.equal(true);
  });

  it('makes an RSA service-account key pair, the private half readable by its owner only', async () => {
    const pki = await generatePki(dir);
    const privateKey = createPrivateKey(await readFile(pki.serviceAccountKeyFile));
    const publicKey = createPublicKey(await readFile(pki.serviceAccountPublicKeyFile));
    expect(privateKey.asymmetricKeyType).to.equal('rsa');
    const signature = sign('sha256', Buffer.from('claims'), privateKey);
    expect(verify('sha256', Buffer.from('claims'), publicKey, signature)).to.equal(true);
    expect((await stat(pki.serviceAccountKeyFile)).mode & 0o077).to.equal(0);
  });

  it('says how to get openssl when it is not installed', async () => {
    const path = process.env.PATH;
    process.env.PATH = dir;
    try {
      await generatePki(dir);
      expect.fail('generatePki succeeded without openssl');
    } catch (error) {
      expect(error).to.be.instanceOf(TestEnvError);
      expect((error as TestEnvError).message).to.equal('openssl is not on PATH');
      expect((error as TestEnvError).hint).to.contain('apt-get install -y openssl');
    } finally {
      process.env.PATH = path;
    }
  });
});
