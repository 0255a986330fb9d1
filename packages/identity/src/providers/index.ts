import type { IdentityKind, IdentityObject } from '@keymaster/api';
import { controllerProvider } from './controller.js';
import type { IdentityProvider, KindProvider } from './provider.js';
import { roleProvider } from './role.js';
import { serviceAccountProvider } from './service-account.js';
import { staticProvider } from './static.js';
import { webProvider } from './web.js';

type ProviderOf<K extends IdentityKind> = KindProvider<Extract<IdentityObject, { kind: K }>, unknown>;

/** The provider of every identity kind: a kind without one, or one at odds with its kind's facts, fails to compile. */
export const PROVIDERS: { readonly [K in IdentityKind]: ProviderOf<K> } = {
  AWSClusterControllerIdentity: controllerProvider,
  AWSClusterStaticIdentity: staticProvider,
  AWSClusterRoleIdentity: roleProvider,
  AWSClusterWebIdentity: webProvider,
  AWSServiceAccountIdentity: serviceAccountProvider,
};

/** The provider of a kind, for an identity of that kind (what it is given must be of the kind). */
export const providerOf = (kind: IdentityKind): IdentityProvider<IdentityObject, unknown> => PROVIDERS[kind];
