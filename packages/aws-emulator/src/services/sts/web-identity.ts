import { FetchFailure } from '../../oidc/fetch.js';
import type { OidcProvider } from '../../oidc/provider.js';
import { audiencesOf, parseWebToken, signedBy, type WebToken } from '../../oidc/web-token.js';
import { ApiError } from '../../protocols/api-error.js';
import type { QueryParams } from '../../protocols/query-params.js';
import { element, elements, type Xml } from '../../protocols/xml.js';
import type { UnsignedCallContext } from '../service.js';
import { checkDuration, DEFAULT_DURATION, readSessionPolicies, sessionXml, startSession } from './session.js';
import { trustsWebIdentity } from './trust.js';
import { readWebIdentityInput } from './web-identity-input.js';

/** AWS's messages for tokens it cannot accept (code InvalidIdentityToken, 400). */
export const INVALID_TOKEN = {
  malformed: 'The ID Token provided is not a valid JWT. (You may see this error if you sent an Access Token)',
  noProvider: (issuer: string) => `No OpenIDConnect provider found in your account for ${issuer}`,
  keysUnavailable:
    "Couldn't retrieve verification key from your identity provider,  please reference AssumeRoleWithWebIdentity documentation for requirements",
  signature: 'The signature of the ID Token is invalid',
  audience: 'Incorrect token audience',
};

const invalidToken = (message: string): ApiError => new ApiError('InvalidIdentityToken', message);

/** The key it was signed with, among the provider's; fetching them is the provider's business. */
async function checkSignature(token: WebToken, provider: OidcProvider): Promise<void> {
  const kid = typeof token.header.kid === 'string' ? token.header.kid : undefined;
  let keys;
  try {
    keys = await provider.keysFor(kid);
  } catch (error) {
    if (error instanceof FetchFailure) throw invalidToken(INVALID_TOKEN.keysUnavailable);
    throw error;
  }
  if (keys.length === 0) throw invalidToken(INVALID_TOKEN.keysUnavailable);
  if (token.header.alg !== 'RS256' || !keys.some((key) => signedBy(token, key))) {
    throw invalidToken(INVALID_TOKEN.signature);
  }
}

/**
 * STS AssumeRoleWithWebIdentity, an unsigned call: the token's issuer must be an OIDC provider of the
 * role's account, its signature one of the provider's keys, it must not have expired (on the emulator's
 * clock) and name one of the provider's client IDs as audience; then the role's trust policy must name
 * the provider with conditions that hold for the token's `sub` and `aud`. Issues a role session like
 * AssumeRole's (durations, session policies), whose source is the provider.
 */
export async function assumeRoleWithWebIdentity(params: QueryParams, call: UnsignedCallContext): Promise<Xml> {
  const input = readWebIdentityInput(params);
  call.note({
    roleArn: input.roleArn,
    roleSessionName: input.roleSessionName,
    ...(input.durationSeconds === undefined ? {} : { durationSeconds: input.durationSeconds }),
  });
  const sessionPolicies = readSessionPolicies(input, call.world);
  const token = parseWebToken(input.webIdentityToken);
  if (!token) throw invalidToken(INVALID_TOKEN.malformed);
  const issuer = typeof token.claims.iss === 'string' ? token.claims.iss : '';
  const provider = call.world.directory.oidcProvider(input.roleArn.split(':')[4]!, issuer);
  if (!provider) throw invalidToken(INVALID_TOKEN.noProvider(issuer));
  await checkSignature(token, provider);
  const expiry = token.claims.exp;
  const now = Math.floor(call.clock.nowMs() / 1000);
  if (typeof expiry !== 'number' || now >= expiry) {
    // AWS's words, without the space before the second time.
    throw new ApiError(
      'ExpiredTokenException',
      `Token expired: current date/time ${now} must be before the expiration date/time${String(expiry)}`,
    );
  }
  const audiences = audiencesOf(token);
  const audience = audiences.find((candidate) => provider.clientIds.includes(candidate));
  if (audience === undefined) throw invalidToken(INVALID_TOKEN.audience);
  const subject = typeof token.claims.sub === 'string' ? token.claims.sub : '';
  call.note({ provider: provider.arn, subject, audience });

  const role = call.world.directory.role(input.roleArn);
  const claims = new Map([
    [`${provider.hostPath}:sub`.toLowerCase(), [subject]],
    [`${provider.hostPath}:aud`.toLowerCase(), audiences],
  ]);
  if (!role || !trustsWebIdentity(role, provider, claims)) {
    throw new ApiError('AccessDenied', 'Not authorized to perform sts:AssumeRoleWithWebIdentity', 403);
  }
  const durationSeconds = input.durationSeconds ?? DEFAULT_DURATION;
  checkDuration(durationSeconds, role, false);
  const { session, credential } = startSession(call.world, call.clock, {
    role,
    sessionName: input.roleSessionName,
    durationSeconds,
    sessionPolicies,
    tags: new Map(),
    transitiveTagKeys: new Set(),
    chained: false,
    sourceArn: provider.arn,
  });
  call.note({ issuedAccessKeyId: credential.accessKeyId, sessionArn: session.arn });
  return elements(
    element('SubjectFromWebIdentityToken', subject),
    element('Audience', audience),
    sessionXml(session, credential),
    element('Provider', provider.arn),
  );
}
