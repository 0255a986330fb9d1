import { isRecord } from '../iam/policy.js';
import { providerArn } from '../oidc/names.js';
import { fail, fieldsOf, listOf, text, unique } from './fields.js';
import type { OidcProviderSpec } from './types.js';

const CLIENT_ID = { pattern: /^[\s\S]{1,255}$/, describe: '1-255 characters' };
const THUMBPRINT = { pattern: /^[0-9a-fA-F]{40}$/, describe: '40 hexadecimal digits (a SHA-1 fingerprint)' };
const PEM = { pattern: /-----BEGIN CERTIFICATE-----/, describe: 'PEM certificates (-----BEGIN CERTIFICATE-----)' };

/** IAM's rules for an OIDC provider's URL: https, at most 255 characters, no query or fragment. */
function issuerUrl(raw: unknown, path: string): string {
  const url = text(raw, path, {
    pattern: /^https:\/\/[^\s]{1,247}$/,
    describe: 'an https URL of at most 255 characters',
  });
  const parsed = URL.canParse(url) ? new URL(url) : undefined;
  if (!parsed || parsed.search !== '' || parsed.hash !== '' || url.endsWith('/')) {
    fail(path, `${JSON.stringify(url)} is not valid: must be an https URL without query, fragment or trailing slash`);
  }
  return url;
}

function discovery(raw: unknown, path: string): OidcProviderSpec['discovery'] {
  const fields = fieldsOf(raw, path, ['url', 'ca']);
  const url =
    fields.url === undefined
      ? undefined
      : text(fields.url, `${path}.url`, { pattern: /^https?:\/\/\S+$/, describe: 'an http or https URL' });
  const ca = fields.ca === undefined ? undefined : text(fields.ca, `${path}.ca`, PEM);
  return { ...(url === undefined ? {} : { url }), ...(ca === undefined ? {} : { ca }) };
}

/** A key set given inline: `{"keys": [...]}` of RSA keys (`kty`, `n`, `e`; `kid` to be found by). */
function jwks(raw: unknown, path: string): unknown {
  const keys = listOf(fieldsOf(raw, path, ['keys']).keys, `${path}.keys`);
  if (keys.length === 0) fail(`${path}.keys`, 'must list at least one key');
  keys.forEach((key, index) => {
    if (!isRecord(key) || key.kty !== 'RSA' || typeof key.n !== 'string' || typeof key.e !== 'string') {
      fail(`${path}.keys[${index}]`, 'must be an RSA public key as a JWK (kty "RSA", n and e; kid to be found by)');
    }
  });
  return raw;
}

/** Checks one `oidcProviders` entry of an account; `arns` collects the provider ARNs (unique per account). */
export function validateOidcProvider(
  raw: unknown,
  path: string,
  accountId: string,
  arns: Set<string>,
): OidcProviderSpec {
  const provider = fieldsOf(raw, path, ['url', 'clientIds', 'thumbprints', 'discovery', 'jwks']);
  const url = issuerUrl(provider.url, `${path}.url`);
  unique(arns, providerArn(accountId, url), `${path}.url`, 'OIDC provider');
  const clientIds = listOf(provider.clientIds, `${path}.clientIds`).map((id, i) =>
    text(id, `${path}.clientIds[${i}]`, CLIENT_ID),
  );
  if (clientIds.length < 1 || clientIds.length > 100) fail(`${path}.clientIds`, 'must list 1 to 100 audiences');
  const thumbprints = listOf(provider.thumbprints, `${path}.thumbprints`).map((thumbprint, i) =>
    text(thumbprint, `${path}.thumbprints[${i}]`, THUMBPRINT).toLowerCase(),
  );
  if (thumbprints.length > 5) fail(`${path}.thumbprints`, 'may list at most 5 thumbprints');
  if (provider.jwks !== undefined && provider.discovery !== undefined) {
    fail(path, 'give either jwks (the keys) or discovery (where to fetch them), not both');
  }
  return {
    url,
    clientIds,
    thumbprints,
    ...(provider.discovery === undefined ? {} : { discovery: discovery(provider.discovery, `${path}.discovery`) }),
    ...(provider.jwks === undefined ? {} : { jwks: jwks(provider.jwks, `${path}.jwks`) }),
  };
}
