import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
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
  /** PEM of the certificate (it is its own CA). */
  cert: string;
  /** PEM of the private key. */
  key: string;
}

/**
 * A self-signed ECDSA P-256 certificate for the emulator's TLS listener, valid for localhost,
 * 127.0.0.1, ::1 and the given host, for one year. It doubles as the CA of the kubeconfig.
 */
export function selfSignedCertificate(host: string): Certificate {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const ecdsaWithSha256 = sequence(oid('1.2.840.10045.4.3.2'));
  const name = sequence(set(sequence(oid('2.5.4.3'), utf8('kube-emulator'))));
  const now = new Date();
  const hosts = new Set(['127.0.0.1', '::1', 'localhost', host]);
  const alternativeNames = [...hosts].map((entry) =>
    isIP(entry) ? tlv(0x87, ipBytes(entry)) : tlv(0x82, Buffer.from(entry)),
  );
  const extensions = sequence(
    sequence(oid('2.5.29.17'), octets(sequence(...alternativeNames))),
    sequence(oid('2.5.29.19'), TRUE, octets(sequence(TRUE))),
  );
  const serial = randomBytes(16);
  // Positive and minimal in DER: a leading zero byte before one below 0x80 is refused as illegal padding.
  serial[0] = (serial[0]! & 0x7f) | 0x01;
  const tbs = sequence(
    explicit(0, integer(Buffer.from([2]))),
    integer(serial),
    ecdsaWithSha256,
    name,
    sequence(time(new Date(now.getTime() - 60_000)), time(new Date(now.getTime() + 365 * 86_400_000))),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
    explicit(3, extensions),
  );
  const der = sequence(tbs, ecdsaWithSha256, bitString(sign('sha256', tbs, privateKey)));
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return {
    cert: `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`,
    key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}
