import { credentialVendingOf, identitiesSourcedFrom, providerOf, type IdentityObject } from '@keymaster/identity';

const linkOf = (identity: IdentityObject): string => `${identity.kind}/${identity.metadata.name ?? ''}`;
const sameIdentity = (a: IdentityObject, b: IdentityObject) => linkOf(a) === linkOf(b);

/**
 * credentialVending that cannot take effect, as an identity is written (the controller never vends
 * these anyway; this tells ops at once):
 * - refused: credentialVending on an identity that is never vended, a web identity of the controller's
 *   namespace or a source of others (a hub): ops would believe it vends. Judged from the identity
 *   itself and the identities already there.
 * - warned: an identity whose source has credentialVending. The source is a hub from now on and stops
 *   vending, which is what ops may mean when building a chain; refusing would make them remove the
 *   field first, in the right order, for the same outcome.
 */
export function vendingMistakes(
  written: IdentityObject,
  identities: readonly IdentityObject[],
): { refusals: string[]; warnings: string[] } {
  const others = identities.filter((identity) => !sameIdentity(identity, written));
  const refusals: string[] = [];
  if (credentialVendingOf(written)) {
    const link = { kind: written.kind, name: written.metadata.name ?? '' };
    const kindRefusal = providerOf(written.kind).vending?.refusal?.(written, link);
    if (kindRefusal)
      refusals.push(
        `${kindRefusal.message}: remove spec.credentialVending, and vend a web identity whose serviceAccount.namespace is Cluster instead`,
      );
    const spokes = identitiesSourcedFrom(link, others).map(linkOf).sort();
    if (spokes.length > 0)
      refusals.push(
        `${linkOf(written)} is the sourceIdentityRef of ${spokes.join(', ')}: an identity that others are made from is ` +
          'never vended (its session may assume their roles). Remove spec.credentialVending, and vend the identities built on it instead',
      );
  }
  const sourceRef = providerOf(written.kind).source(written);
  const source = others.find(
    (identity) => identity.kind === sourceRef?.kind && identity.metadata.name === sourceRef.name,
  );
  const warnings =
    source && credentialVendingOf(source)
      ? [
          `${linkOf(source)} has spec.credentialVending, but ${linkOf(written)} makes it a source: from now on its ` +
            'session is never vended, and the AWSCredentialsRequests that use it lose their credentials at their next ' +
            `reconcile. Remove credentialVending from ${linkOf(source)}, and vend ${linkOf(written)} (or another identity built on it) instead.`,
        ]
      : [];
  return { refusals, warnings };
}
