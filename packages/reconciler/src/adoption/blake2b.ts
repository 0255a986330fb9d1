/**
 * BLAKE2b (RFC 7693), unkeyed, with any digest length of 1-64 bytes: CAPA names a long EKS cluster
 * after a 27-byte BLAKE2b digest, and Node's crypto offers only the 64-byte one (the digest length is
 * an input of the hash, so truncating that one gives another value). BigInt arithmetic: the inputs
 * are names, a few hundred bytes.
 */
const MASK = (1n << 64n) - 1n;
const BLOCK = 128;

const IV = [
  0x6a09e667f3bcc908n,
  0xbb67ae8584caa73bn,
  0x3c6ef372fe94f82bn,
  0xa54ff53a5f1d36f1n,
  0x510e527fade682d1n,
  0x9b05688c2b3e6c1fn,
  0x1f83d9abfb41bd6bn,
  0x5be0cd19137e2179n,
];

const SIGMA = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
  [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
  [11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4],
  [7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8],
  [9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13],
  [2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9],
  [12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11],
  [13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10],
  [6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5],
  [10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0],
];

const rotr = (x: bigint, n: bigint) => ((x >> n) | (x << (64n - n))) & MASK;

function compress(h: bigint[], block: Uint8Array, counter: bigint, last: boolean): void {
  const view = new DataView(block.buffer, block.byteOffset, BLOCK);
  const m = Array.from({ length: 16 }, (_, i) => view.getBigUint64(i * 8, true));
  const v = [...h, ...IV];
  v[12] = v[12]! ^ (counter & MASK);
  v[13] = v[13]! ^ (counter >> 64n);
  if (last) v[14] = v[14]! ^ MASK;
  const mix = (a: number, b: number, c: number, d: number, x: bigint, y: bigint) => {
    v[a] = (v[a]! + v[b]! + x) & MASK;
    v[d] = rotr(v[d]! ^ v[a], 32n);
    v[c] = (v[c]! + v[d]) & MASK;
    v[b] = rotr(v[b]! ^ v[c], 24n);
    v[a] = (v[a] + v[b] + y) & MASK;
    v[d] = rotr(v[d] ^ v[a], 16n);
    v[c] = (v[c] + v[d]) & MASK;
    v[b] = rotr(v[b] ^ v[c], 63n);
  };
  for (let round = 0; round < 12; round++) {
    const s = SIGMA[round % 10]!;
    const word = (i: number) => m[s[i]!]!;
    mix(0, 4, 8, 12, word(0), word(1));
    mix(1, 5, 9, 13, word(2), word(3));
    mix(2, 6, 10, 14, word(4), word(5));
    mix(3, 7, 11, 15, word(6), word(7));
    mix(0, 5, 10, 15, word(8), word(9));
    mix(1, 6, 11, 12, word(10), word(11));
    mix(2, 7, 8, 13, word(12), word(13));
    mix(3, 4, 9, 14, word(14), word(15));
  }
  for (let i = 0; i < 8; i++) h[i] = h[i]! ^ v[i]! ^ v[i + 8]!;
}

/** The BLAKE2b digest of `input`, `length` bytes long (1-64). */
export function blake2b(input: Uint8Array, length: number): Uint8Array {
  if (!Number.isInteger(length) || length < 1 || length > 64) throw new RangeError('BLAKE2b digests are 1-64 bytes');
  const h = [...IV];
  h[0] = h[0]! ^ 0x01010000n ^ BigInt(length);
  // Every full block but the last is compressed as it comes; the last (possibly empty, zero-padded) is final.
  let offset = 0;
  while (input.length - offset > BLOCK) {
    compress(h, input.subarray(offset, offset + BLOCK), BigInt(offset + BLOCK), false);
    offset += BLOCK;
  }
  const last = new Uint8Array(BLOCK);
  last.set(input.subarray(offset));
  compress(h, last, BigInt(input.length), true);
  const out = new Uint8Array(64);
  const view = new DataView(out.buffer);
  h.forEach((word, i) => view.setBigUint64(i * 8, word, true));
  return out.slice(0, length);
}
