import { KubeEmulatorError } from '../../errors.js';
import { JWKS_PATH, type IssuerSettings } from './issuer.js';

/** The emulator's options for service-account tokens, named after kube-apiserver's flags. */
export interface IssuerOptions {
  /** `--service-account-issuer`: the `iss` of its tokens; the emulator's own URL by default. */
  serviceAccountIssuer?: string;
  /** `--service-account-jwks-uri`: the `jwks_uri` of the discovery document; `<url>/openid/v1/jwks` by default. */
  serviceAccountJwksUri?: string;
  /** `--api-audiences`: the audiences of tokens meant for the emulator itself; the issuer by default. */
  apiAudiences?: string[];
  /** `--service-account-max-token-expiration`, in seconds (3600 to 2^32): longer TokenRequests are shortened. */
  serviceAccountMaxTokenExpirationSeconds?: number;
  /**
   * The clock TokenRequest issues tokens by, in milliseconds (no kube-apiserver flag: for tests that
   * move the aws-emulator's clock, so that the tokens it checks are fresh on its time). Default: Date.now.
   */
  serviceAccountTokenClock?: () => number;
}

const usage = (message: string, hint: string): KubeEmulatorError =>
  new KubeEmulatorError('ERR_KEYMASTER_KUBE_EMULATOR_USAGE', message, { hint });

/** kube-apiserver's start-up checks of these flags. */
export function checkIssuerOptions(options: IssuerOptions): void {
  const issuer = options.serviceAccountIssuer;
  if (issuer !== undefined && (issuer === '' || (issuer.includes(':') && !URL.canParse(issuer)))) {
    throw usage(
      `the service-account issuer ${JSON.stringify(issuer)} is not valid: it must be a URL (or an identifier without ":")`,
      'pass an https URL such as https://kubernetes.default.svc to --service-account-issuer (serviceAccountIssuer)',
    );
  }
  const jwksUri = options.serviceAccountJwksUri;
  if (jwksUri !== undefined && !(URL.canParse(jwksUri) && new URL(jwksUri).protocol === 'https:')) {
    throw usage(
      `the service-account JWKS URI ${JSON.stringify(jwksUri)} is not valid: it requires the https scheme`,
      'pass an https URL to --service-account-jwks-uri (serviceAccountJwksUri), or leave it out',
    );
  }
  if (options.apiAudiences !== undefined && options.apiAudiences.some((audience) => audience === '')) {
    throw usage('the API audiences must not be empty strings', 'list audiences such as https://kubernetes.default.svc');
  }
  const max = options.serviceAccountMaxTokenExpirationSeconds;
  if (max !== undefined && !(Number.isInteger(max) && max >= 3600 && max <= 2 ** 32)) {
    throw usage(
      `the service-account max token expiration must be between 1 hour and 2^32 seconds, not ${String(max)}`,
      'pass a whole number of seconds from 3600 to 4294967296 (serviceAccountMaxTokenExpirationSeconds), or leave it out',
    );
  }
}

/** The settings of an emulator listening at `url`. */
export function issuerSettings(options: IssuerOptions, url: string): IssuerSettings {
  const issuer = options.serviceAccountIssuer ?? url;
  return {
    issuer,
    jwksUri: options.serviceAccountJwksUri ?? `${url}${JWKS_PATH}`,
    apiAudiences: options.apiAudiences && options.apiAudiences.length > 0 ? options.apiAudiences : [issuer],
    now: options.serviceAccountTokenClock ?? Date.now,
    ...(options.serviceAccountMaxTokenExpirationSeconds === undefined
      ? {}
      : { maxExpirationSeconds: options.serviceAccountMaxTokenExpirationSeconds }),
  };
}
