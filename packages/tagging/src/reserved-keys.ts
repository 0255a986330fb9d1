/** Keys the platform writes itself, so no tag layer may set them. */
export interface ReservedKeys {
  /** DNS domains: a key is reserved when its first path segment is the domain or a subdomain of it. */
  domains: readonly string[];
  /** Exact keys (case-sensitive, as AWS tag keys are). */
  keys: readonly string[];
}

export const DEFAULT_RESERVED_KEYS: ReservedKeys = {
  domains: ['kubernetes.io', 'sigs.k8s.io', 'openshift.io', 'keymaster.dev'],
  // EC2's console shows `Name`; the tools that create the resources set it.
  keys: ['Name'],
};

/** Why a key is reserved (e.g. `keys under kubernetes.io/ are reserved for the platform`), or undefined. */
export function reservation(key: string, reserved: ReservedKeys): string | undefined {
  if (reserved.keys.includes(key)) return `the key ${JSON.stringify(key)} is reserved for the platform`;
  // Domains are case-insensitive, so `Kubernetes.IO/x` is as reserved as `kubernetes.io/x`.
  const segment = key.split('/', 1)[0]!.toLowerCase();
  const domain = reserved.domains.find(
    (candidate) => segment === candidate.toLowerCase() || segment.endsWith(`.${candidate.toLowerCase()}`),
  );
  return domain === undefined ? undefined : `keys under ${domain}/ and its subdomains are reserved for the platform`;
}
