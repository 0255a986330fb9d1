import type { AWSClusterStaticIdentity } from '@keymaster/api';
import type { AwsCredentialIdentity } from '@smithy/types';
import { digest } from '../digest.js';
import { SecretNotFoundError } from '../errors.js';
import { credentialsFromSecret, STATIC_KEYS } from '../secret.js';
import type { KindProvider } from './provider.js';

/** Long-lived keys from a Secret of the controller's namespace (CAPA's: of CAPA's), read when the chain is walked. */
export const staticProvider: KindProvider<AWSClusterStaticIdentity, AwsCredentialIdentity> = {
  kind: 'AWSClusterStaticIdentity',
  callsSts: false,
  source: () => undefined,
  secrets: (identity) => [identity.spec.secretRef],
  load: async (identity, { ref, store, secretNamespace }) => {
    const secretKey = `${secretNamespace}/${identity.spec.secretRef}`;
    const secret = await store.getSecret(secretNamespace, identity.spec.secretRef);
    if (!secret) throw new SecretNotFoundError(ref, secretKey, STATIC_KEYS);
    return credentialsFromSecret(ref, secretKey, secret.data);
  },
  // The Secret's name and a digest of the keys (never the keys): rotated keys make a new credential set.
  credentialInputs: ({ identity, material }) => ({ secretRef: identity.spec.secretRef, keys: digest(material) }),
  credentials:
    ({ material }) =>
    () =>
      Promise.resolve(material!),
  linkDetails: () => ({}),
  actsWith: (identity) => `keys of Secret ${identity.spec.secretRef}`,
  warnings: () => [],
  status: () => ({}),
};
