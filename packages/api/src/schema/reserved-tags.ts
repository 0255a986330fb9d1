import type { ValidationRule } from './openapi.js';

/**
 * Tag keys the platform writes itself, so that no tag layer may set them (nor a variant in another case:
 * IAM reads tag keys in any case): keys under these DNS domains or their subdomains (the first path
 * segment), among them the ownership tags kubernetes.io/cluster/<name> and
 * sigs.k8s.io/cluster-api-provider-aws/cluster/<name>, and these keys.
 */
export const RESERVED_TAG_DOMAINS = ['kubernetes.io', 'sigs.k8s.io', 'openshift.io', 'keymaster.dev'] as const;
export const RESERVED_TAG_KEYS = ['Name'] as const;

// RE2 and JavaScript read this alike: the first path segment is a reserved domain or ends with `.domain`.
const domains = RESERVED_TAG_DOMAINS.map((domain) => domain.replaceAll('.', '[.]')).join('|');
const underReservedDomain = (key: string) => `${key}.lowerAscii().matches('^([^/]*[.])?(${domains})(/|$)')`;
const reservedKey = (key: string) =>
  RESERVED_TAG_KEYS.map((reserved) => `${key}.lowerAscii() == '${reserved.toLowerCase()}'`).join(' || ');

const messages = {
  domain: `tag keys under ${RESERVED_TAG_DOMAINS.map((domain) => `${domain}/`).join(', ')} (and their subdomains, in any case) are reserved for the platform: ownership tags such as kubernetes.io/cluster/<name> are set by the tools that create the resources, and Keymaster never writes them; choose a key under your own domain, e.g. example.com/team`,
  key: `the tag keys ${RESERVED_TAG_KEYS.map((key) => `"${key}"`).join(', ')} (in any case) are reserved: the tools that create the resources set them`,
};

/** CEL rules refusing reserved keys, for a map of tags (`self` the map) or for one key (`self` the key). */
export const reservedTagKeyRules = (of: 'map' | 'key'): ValidationRule[] =>
  of === 'map'
    ? [
        { rule: `self.all(k, !${underReservedDomain('k')})`, message: messages.domain },
        { rule: `self.all(k, !(${reservedKey('k')}))`, message: messages.key },
      ]
    : [
        { rule: `!${underReservedDomain('self')}`, message: messages.domain },
        { rule: `!(${reservedKey('self')})`, message: messages.key },
      ];
