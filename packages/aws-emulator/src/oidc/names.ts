/** An issuer URL without its scheme (`oidc.example.com/id/1`): IAM names providers and their condition keys by it. */
export const issuerHostPath = (url: string): string => url.replace(/^https:\/\//, '');

/** `arn:aws:iam::<account>:oidc-provider/<host and path>`. */
export const providerArn = (accountId: string, url: string): string =>
  `arn:aws:iam::${accountId}:oidc-provider/${issuerHostPath(url)}`;
