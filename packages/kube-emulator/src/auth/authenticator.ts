import type { Store } from '../storage/store.js';
import type { ServiceAccountIssuer } from './service-accounts/issuer.js';
import { serviceAccountUser } from './service-accounts/validator.js';
import { ADMIN, ANONYMOUS, type User } from './tokens.js';

/** What authenticating one bearer token found: its user and audiences, or why not (no error: unknown token). */
export type TokenVerdict = { user: User; audiences: string[] } | { user?: undefined; error?: string };

/**
 * kube-apiserver's bearer-token authentication: the static token file (audience-agnostic: it serves
 * the API audiences only), then the service-account tokens of this issuer.
 */
export class Authenticator {
  constructor(
    /** The token file's users; undefined when there is none (then requests without a token are the admin). */
    private readonly users: Map<string, User> | undefined,
    private readonly issuer: ServiceAccountIssuer,
    private readonly store: Store,
    private readonly anonymousAuth = true,
  ) {}

  /** A token for the audiences asked for (the API server's own when none), as TokenReview and requests see it. */
  token(token: string, requested: string[] = []): TokenVerdict {
    const audiences = requested.length > 0 ? requested : this.issuer.settings.apiAudiences;
    const fileUser = this.users?.get(token);
    if (fileUser) {
      const served = audiences.filter((audience) => this.issuer.settings.apiAudiences.includes(audience));
      if (served.length > 0) return { user: fileUser, audiences: served };
    }
    const checked = this.issuer.check(token, audiences);
    if (checked.kind === 'other') return {};
    if (checked.kind === 'refused') return { error: checked.error };
    const found = serviceAccountUser(checked.claims, this.store);
    return 'error' in found ? found : { user: found, audiences: checked.audiences };
  }

  /**
   * The user of a request, from its `Authorization: Bearer` header; undefined answers 401. Without a
   * token file, a request is the admin unless it carries a token of this issuer: then it is that
   * service account, or refused like any bad token. With one, a request without any credentials is
   * anonymous (unless anonymous authentication is off).
   */
  request(authorization: string | undefined): User | undefined {
    const token = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
    if (this.users && token === undefined && authorization === undefined)
      return this.anonymousAuth ? ANONYMOUS : undefined;
    const verdict: TokenVerdict = token === undefined ? {} : this.token(token);
    if (this.users || verdict.user || verdict.error !== undefined) return verdict.user;
    return ADMIN;
  }
}
