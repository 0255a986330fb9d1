import { quoteText, RESERVED_TAG_DOMAINS, RESERVED_TAG_KEYS } from '@keymaster/api';
import { foldKey } from './key-fold.js';

/** Keys the platform writes itself, so no tag layer may set them (nor a variant of them in another case). */
export interface ReservedKeys {
  /** DNS domains: a key is reserved when its first path segment is the domain or a subdomain of it. */
  domains: readonly string[];
  /** Keys, each also reserved in any other case (IAM reads tag keys in any case). */
  keys: readonly string[];
}

// The API's list, which the CRDs refuse at admission; EC2's console shows `Name`, set by the tools that create the resources.
export const DEFAULT_RESERVED_KEYS: ReservedKeys = { domains: RESERVED_TAG_DOMAINS, keys: RESERVED_TAG_KEYS };

/** Why a key is reserved (e.g. `keys under kubernetes.io/ are reserved for the platform`), or undefined. */
export function reservation(key: string, reserved: ReservedKeys): string | undefined {
  const folded = foldKey(key);
  const exact = reserved.keys.find((candidate) => foldKey(candidate) === folded);
  if (exact === key) return `the key ${quoteText(key)} is reserved for the platform`;
  if (exact !== undefined) {
    return `the key differs from the reserved key ${quoteText(exact)} only in case or whitespace, and IAM reads tag keys in any case`;
  }
  // `Kubernetes.IO/x` and ` kubernetes.io/x` are as reserved as `kubernetes.io/x`.
  const segment = folded.split('/', 1)[0]!;
  const domain = reserved.domains.find(
    (candidate) => segment === foldKey(candidate) || segment.endsWith(`.${foldKey(candidate)}`),
  );
  return domain === undefined ? undefined : `keys under ${domain}/ and its subdomains are reserved for the platform`;
}
