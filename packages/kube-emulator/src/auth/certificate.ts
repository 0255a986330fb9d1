import { createPrivateKey, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { isIP } from 'node:net';

/** A DER type-length-value. */
function tlv(tag: number, content: Buffer): Buffer {
  const length = content.length;
  if (length < 0x80) return Buffer.concat([Buffer.from([tag, length]), content]);
  const bytes: number[] = [];
  for (let rest = length; rest > 0; rest >>= 8) bytes.unshift(rest & 0xff);
  return Buffer.concat([Buffer.from([tag, 0x80 | bytes.length, ...bytes]), content]);
}

const sequence = (...items: Buffer[]): Buffer => tlv(0x30, Buffer.concat(items));
const set = (...items: Buffer[]): Buffer => tlv(0x31, Buffer.concat(items));
const explicit = (tag: number, content: Buffer): Buffer => tlv(0xa0 | tag, content);
const utf8 = (value: string): Buffer => tlv(0x0c, Buffer.from(value, 'utf8'));
const octets = (value: Buffer): Buffer => tlv(0x04, value);
const bitString = (value: Buffer): Buffer => tlv(0x03, Buffer.concat([Buffer.from([0]), value]));
const integer = (value: Buffer): Buffer =>
  tlv(0x02, value[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), value]) : value);
const TRUE = tlv(0x01, Buffer.from([0xff]));

function oid(dotted: string): Buffer {
  const [first, second, ...rest] = dotted.split('.').map(Number);
  const bytes = [first! * 40 + second!];
  for (const part of rest) {
    const chunk: number[] = [];
    for (let value = part; ; value = Math.floor(value / 128)) {
      chunk.unshift((value % 128) | (chunk.length > 0 ? 0x80 : 0));
      if (value < 128) break;
    }
    bytes.push(...chunk);
  }
  return tlv(0x06, Buffer.from(bytes));
}

/** UTCTime, `YYMMDDhhmmssZ`. */
const time = (date: Date): Buffer =>
  tlv(0x17, Buffer.from(date.toISOString().replace(/[-:T]/g, '').slice(2, 14) + 'Z'));

function ipBytes(address: string): Buffer {
  if (isIP(address) === 4) return Buffer.from(address.split('.').map(Number));
  const [head = '', tail = ''] = address.split('::');
  const groups = (part: string): string[] => (part === '' ? [] : part.split(':'));
  const filled = [
    ...groups(head),
    ...Array<string>(8 - groups(head).length - groups(tail).length).fill('0'),
    ...groups(tail),
  ];
  return Buffer.concat(filled.map((group) => Buffer.from(group.padStart(4, '0'), 'hex')));
}

export interface Certificate {
  /** PEM of the certificate. */
  cert: string;
  /** PEM of the private key. */
  key: string;
}

export interface CertificateRequest {
  commonName: string;
  /** DNS names and IP addresses of a serving certificate. */
  hosts?: string[];
  /** A CA (it signs others) rather than a leaf. */
  ca?: boolean;
  /** Extended key usage clientAuth, which Go's client certificate verification requires. */
  clientAuth?: boolean;
  /** The CA that signs it; self-signed without one. */
  issuer?: Certificate;
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----([^-]+)-----END CERTIFICATE-----/;

/** The DER subject of a PEM certificate (the issuer name of those it signs). */
function subjectOf(pem: string): Buffer {
  const der = Buffer.from(PEM_CERTIFICATE.exec(pem)![1]!.replace(/\s/g, ''), 'base64');
  return subjectField(der);
}

/** The length of a DER element's header and content at `offset`. */
function element(der: Buffer, offset: number): { start: number; end: number } {
  const first = der[offset + 1]!;
  if (first < 0x80) return { start: offset + 2, end: offset + 2 + first };
  let length = 0;
  for (let index = 0; index < (first & 0x7f); index++) length = length * 256 + der[offset + 2 + index]!;
  const start = offset + 2 + (first & 0x7f);
  return { start, end: start + length };
}

/** tbsCertificate's sixth element (version, serial, algorithm, issuer, validity, subject). */
function subjectField(der: Buffer): Buffer {
  const tbs = element(der, element(der, 0).start);
  let offset = tbs.start;
  for (let index = 0; index < 5; index++) offset = element(der, offset).end;
  return der.subarray(offset, element(der, offset).end);
}

/**
 * An ECDSA P-256 certificate, valid for one year: the emulator's TLS listener (self-signed, its own
 * CA), the front-proxy CA and the client certificate it signs for proxying to aggregated servers.
 */
export function issueCertificate(request: CertificateRequest): Certificate {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const ecdsaWithSha256 = sequence(oid('1.2.840.10045.4.3.2'));
  const subject = sequence(set(sequence(oid('2.5.4.3'), utf8(request.commonName))));
  const issuerName = request.issuer ? subjectOf(request.issuer.cert) : subject;
  const signingKey = request.issuer ? createPrivateKey(request.issuer.key) : privateKey;
  const now = new Date();
  const alternativeNames = (request.hosts ?? []).map((entry) =>
    isIP(entry) ? tlv(0x87, ipBytes(entry)) : tlv(0x82, Buffer.from(entry)),
  );
  const extensions = sequence(
    ...(alternativeNames.length > 0 ? [sequence(oid('2.5.29.17'), octets(sequence(...alternativeNames)))] : []),
    sequence(oid('2.5.29.19'), TRUE, octets(request.ca ? sequence(TRUE) : sequence())),
    ...(request.clientAuth ? [sequence(oid('2.5.29.37'), octets(sequence(oid('1.3.6.1.5.5.7.3.2'))))] : []),
  );
  const serial = randomBytes(16);
  // Positive and minimal in DER: a leading zero byte before one below 0x80 is refused as illegal padding.
  serial[0] = (serial[0]! & 0x7f) | 0x01;
  const tbs = sequence(
    explicit(0, integer(Buffer.from([2]))),
    integer(serial),
    ecdsaWithSha256,
    issuerName,
    sequence(time(new Date(now.getTime() - 60_000)), time(new Date(now.getTime() + 365 * 86_400_000))),
    subject,
    publicKey.export({ type: 'spki', format: 'der' }),
    explicit(3, extensions),
  );
  const der = sequence(tbs, ecdsaWithSha256, bitString(sign('sha256', tbs, signingKey)));
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return {
    cert: `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`,
    key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}

/**
 * A self-signed certificate for the emulator's TLS listener, valid for localhost, 127.0.0.1, ::1 and
 * the given host. It doubles as the CA of the kubeconfig.
 */
export const selfSignedCertificate = (host: string): Certificate =>
  issueCertificate({
    commonName: 'kube-emulator',
    hosts: [...new Set(['127.0.0.1', '::1', 'localhost', host])],
    ca: true,
  });
