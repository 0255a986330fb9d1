import { createHash, generateKeyPairSync, type JsonWebKey, type KeyObject } from 'node:crypto';

/** The key that signs service-account tokens, and how the JWKS publishes it. */
export interface SigningKey {
  /** kube-apiserver's key ID: the unpadded base64url SHA-256 of the public key's DER (SubjectPublicKeyInfo). */
  readonly kid: string;
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
  /** The public key as the JWKS lists it, with kube-apiserver's fields in its order: use, kty, kid, alg, n, e. */
  readonly jwk: JsonWebKey;
}

/** An RSA 2048 key, as `--service-account-signing-key-file` is most often given (tokens are RS256). */
export function generateSigningKey(): SigningKey {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const kid = createHash('sha256')
    .update(publicKey.export({ type: 'spki', format: 'der' }))
    .digest('base64url');
  const { n, e } = publicKey.export({ format: 'jwk' });
  return { kid, privateKey, publicKey, jwk: { use: 'sig', kty: 'RSA', kid, alg: 'RS256', n, e } };
}
