import {
  API_VERSION,
  CAPA_GROUP,
  formatCause,
  validateObject,
  type ClusterIdentityReference,
  type IdentityKind,
  type IdentityLink,
  type IdentityObject,
  type IdentityReference,
} from '@keymaster/api';
import {
  ChainTooDeepError,
  IdentityCycleError,
  IdentityDeletingError,
  IdentityError,
  IdentityNotFoundError,
  InvalidIdentityError,
  linkName,
  type LinkName,
} from './errors.js';
import { DEFAULT_CAPA_OPTIONS, isCapaIdentity, namespaceRefusal } from './capa.js';
import { servesCluster, type ClusterUser, type UsersAtDeletion } from './deletion.js';
import { groupOf, identityId, refGroup } from './identity-id.js';
import { identityAllows, type NamespaceInfo } from './namespaces.js';
import { CONTROLLER_IDENTITY } from './providers/controller.js';
import { providerOf } from './providers/index.js';
import type { ChainLink } from './providers/provider.js';
import type { IdentityStore } from './store.js';
import { vendingProblems } from './vending.js';

export { CONTROLLER_IDENTITY, type ChainLink };

// Informer caches hand out the same object until it changes, so its schema check is done once.
// CAPA's identities, adapted to Keymaster's fields, are held to the schema of Keymaster's kind.
const checked = new WeakMap<IdentityObject, string[]>();
function schemaCauses(identity: IdentityObject): string[] {
  let causes = checked.get(identity);
  if (!causes) {
    const asKeymaster = isCapaIdentity(identity) ? { ...identity, apiVersion: API_VERSION } : identity;
    causes = validateObject(asKeymaster, { unknownFields: 'ignore' }).map(formatCause);
    checked.set(identity, causes);
  }
  return causes;
}

/** The most identities one chain may hold, the cluster's own identity included. */
export const MAX_CHAIN_LINKS = 5;

export interface ChainRequest {
  /** The namespace of the AWSCluster: every link must allow it. */
  namespace: string;
  /** With `apiGroup` CAPA's, one of CAPA's identities (and so are its sources). */
  identityRef?: ClusterIdentityReference | undefined;
  controllerNamespace: string;
  /** Where CAPA's static identities' Secrets are (default capa-system). */
  capaNamespace?: string | undefined;
  maxLinks?: number;
  /** The AWSCluster asking: an identity being deleted serves it only if it used it before (`servesCluster`). */
  cluster?: ClusterUser | undefined;
  usersAtDeletion?: UsersAtDeletion | undefined;
  /**
   * An AWSCredentialsRequest asks: the first link's session is vended to the namespace's workloads,
   * so it must also pass `vendingProblems` (opt-in, never a hub or a platform token), after every link.
   */
  vending?: boolean;
}

/** A link as status shows it: CAPA's group for CAPA's, kind, name and what its provider adds (a role's ARN). */
export const identityLink = ({ kind, name, identity }: ChainLink): IdentityLink => ({
  ...(isCapaIdentity(identity) ? { apiGroup: CAPA_GROUP } : {}),
  kind,
  name,
  ...providerOf(kind).linkDetails(identity),
});

/**
 * Walks an identityRef through its sources, the cluster's own identity first and the root last,
 * checking on the way every link's existence, schema, allowedNamespaces and (for `request.cluster`)
 * deletion; for `request.vending`, then whether the first link's session may be vended to the
 * namespace; and only then loading what their providers need (static keys, a role's externalID).
 * Nothing here is cached: a revoked namespace or a deleted identity is seen on the very next call.
 * `touched` collects each identity's `identityId` and `Secret/name` of each Secret looked up. A
 * refusal carries the chain as far as it was checked (`IdentityError.chain`).
 */
export async function resolveChain(
  store: IdentityStore,
  request: ChainRequest,
  touched = new Set<string>(),
): Promise<ChainLink[]> {
  return resolveVisiting(store, request, {
    identity: (ref) => touched.add(identityId(ref.kind, ref.name, request.namespace, refGroup(ref))),
    secret: (name) => touched.add(`Secret/${name}`),
  });
}

/** What a walk looks up, told as it goes: each identity (before it is read) and each Secret. */
interface Visitor {
  identity(ref: GroupedRef): void;
  secret(name: string): void;
}

async function resolveVisiting(store: IdentityStore, request: ChainRequest, visit: Visitor): Promise<ChainLink[]> {
  const links: ChainLink[] = [];
  try {
    return await walkChain(store, request, visit, links);
  } catch (error) {
    if (error instanceof IdentityError) error.chain = checkedChain(links, error.link);
    throw error;
  }
}

/** A reference as the walk holds it: `apiGroup` only for another group's (CAPA's) identity. */
type GroupedRef = LinkName & { kind: IdentityKind };

/** `ref` in `apiGroup` (Keymaster's when absent), as the walk holds it. */
const inGroup = ({ kind, name }: IdentityReference, apiGroup: string | undefined): GroupedRef =>
  apiGroup === CAPA_GROUP ? { apiGroup, kind, name } : { kind, name };

/** Whether a link is the identity a reference names: kind, name and group alike. */
const isRef = (link: ChainLink, ref: LinkName): boolean =>
  link.kind === ref.kind && link.name === ref.name && groupOf(link.identity) === refGroup(ref);

/** A link by name: its group too when it is CAPA's. */
export const nameOf = (link: ChainLink): LinkName => inGroup(link, groupOf(link.identity));

/** The links that allowed the namespace, then the one at fault unless it is one of them. */
function checkedChain(links: readonly ChainLink[], atFault: LinkName | undefined): IdentityLink[] {
  const walked = links.map(identityLink);
  if (!atFault || links.some((link) => isRef(link, atFault))) return walked;
  return [...walked, { ...atFault }];
}

/**
 * One link as `checkChain` finds it: the identity (absent when it does not exist) and everything that
 * refuses it or breaks it, each an IdentityError with its fix in `hint`. Never holds keys.
 */
export interface LinkCheck {
  /** CAPA's group for one of CAPA's identities. */
  apiGroup?: string;
  kind: IdentityKind;
  name: string;
  identity?: IdentityObject;
  problems: IdentityError[];
}

/**
 * Walks the chain as `resolveChain` does, then, for `request.vending`, checks that the first link's
 * session may be vended. Without `checks`, the first refusal is thrown. With `checks`, every link's
 * refusals are recorded there and the walk goes on to its source; it stops only where the source is
 * unknown (a missing or invalid identity) or the chain loops or runs too deep.
 */
async function walkChain(
  store: IdentityStore,
  request: ChainRequest,
  visit: Visitor,
  links: ChainLink[],
  checks?: LinkCheck[],
): Promise<ChainLink[]> {
  const namespace = (await store.getNamespace(request.namespace)) ?? { name: request.namespace, labels: {} };
  // Resolving, what providers load is read once every check has passed: a deeper link that refuses the
  // namespace is the refusal, and a Secret's error never claims a usage not checked to the end.
  const loads: (() => Promise<void>)[] = [];
  await walkLinks(store, request, namespace, visit, links, loads, checks);
  const [own] = links;
  if (request.vending && own) {
    const problems = vendingProblems(own, namespace, await store.listIdentities());
    if (!checks && problems[0]) throw problems[0];
    checks?.[0]?.problems.push(...problems);
  }
  for (const load of loads) await load();
  return links;
}

/**
 * Walks and checks the links into `links`, each as it is reached (`walkChain`). What providers load is
 * loaded link by link with `checks`, and otherwise left in `loads` for the caller.
 */
async function walkLinks(
  store: IdentityStore,
  request: ChainRequest,
  namespace: NamespaceInfo,
  visit: Visitor,
  links: ChainLink[],
  loads: (() => Promise<void>)[],
  checks?: LinkCheck[],
): Promise<void> {
  const limit = request.maxLinks ?? MAX_CHAIN_LINKS;
  const first: ClusterIdentityReference = request.identityRef ?? CONTROLLER_IDENTITY;
  let ref = inGroup(first, refGroup(first));
  let referencedBy = `${request.vending ? 'AWSCredentialsRequests' : 'AWSClusters'} in namespace ${request.namespace}`;
  for (;;) {
    const check: LinkCheck = { ...ref, problems: [] };
    checks?.push(check);
    const refuse = (problem: IdentityError): void => {
      if (!checks) throw problem;
      check.problems.push(problem);
    };
    const seenAt = links.findIndex((link) => isRef(link, ref));
    if (seenAt >= 0) {
      refuse(new IdentityCycleError([...links.slice(seenAt).map(nameOf), ref]));
      return;
    }
    if (links.length === limit) {
      refuse(new ChainTooDeepError(links.map(nameOf), limit));
      return;
    }

    visit.identity(ref);
    let identity;
    try {
      identity = await store.getIdentity(ref.kind, ref.name, request.namespace, refGroup(ref));
    } catch (error) {
      // A store that reads no identity of the ref's group (CAPA's) says why.
      if (!(error instanceof IdentityError)) throw error;
      refuse(error);
      return;
    }
    if (!identity) {
      refuse(new IdentityNotFoundError(ref, referencedBy));
      return;
    }
    check.identity = identity;
    const causes = schemaCauses(identity);
    if (causes.length > 0) {
      // Where an invalid identity points cannot be trusted: the walk ends here.
      refuse(new InvalidIdentityError(ref, causes));
      return;
    }
    if (!identityAllows(identity, namespace)) {
      refuse(namespaceRefusal(ref, identity, request.namespace, links.length));
    }
    if (request.cluster && !servesCluster(identity, request.cluster, request.usersAtDeletion?.(identity))) {
      refuse(new IdentityDeletingError(ref, request.namespace, links.length));
    }
    const link: ChainLink = { kind: ref.kind, name: ref.name, identity };
    links.push(link);

    const provider = providerOf(identity.kind);
    for (const secret of provider.secrets(identity)) visit.secret(secret);
    if (provider.load) {
      const context = {
        ref,
        store,
        controllerNamespace: request.controllerNamespace,
        // CAPA's static identities read their Secret where CAPA does: in CAPA's namespace.
        secretNamespace: ref.apiGroup
          ? (request.capaNamespace ?? DEFAULT_CAPA_OPTIONS.namespace)
          : request.controllerNamespace,
      };
      const loadLink = async () => {
        try {
          link.material = await provider.load!(identity, context);
        } catch (error) {
          if (!(error instanceof IdentityError)) throw error;
          refuse(error);
        }
      };
      if (checks) await loadLink();
      else loads.push(loadLink);
    }
    const source = provider.source(identity);
    if (!source) return;
    referencedBy = linkName(ref);
    // A source is of its identity's group: CAPA's chains stay among CAPA's identities.
    ref = inGroup(source, ref.apiGroup);
  }
}

/**
 * Every link of a cluster's chain with its verdict, without stopping at the first refusal: each link's
 * existence, schema, allowedNamespaces, deletion (for `request.cluster`) and what its provider loads
 * (a static identity's Secret), and for `request.vending` the first link's vending (in its problems),
 * so that one look shows everything to fix. The store only: no STS call, no credentials
 * made. Unlike `resolveChain`, a link that refuses the namespace does not stop the walk, and its
 * Secret is still checked (the keys are read to be checked, never returned).
 */
export async function checkChain(store: IdentityStore, request: ChainRequest): Promise<LinkCheck[]> {
  const checks: LinkCheck[] = [];
  await walkChain(store, request, { identity: () => undefined, secret: () => undefined }, [], checks);
  return checks;
}

/**
 * the `identityId` of every identity and `Secret/name` of every Secret a cluster's chain reaches, from
 * the store alone (no AWS call): the links up to and including one that is missing or refuses the
 * namespace. For finding the clusters an identity or Secret change affects, and in-use protection.
 */
export async function chainDependencies(store: IdentityStore, request: ChainRequest): Promise<string[]> {
  const touched = new Set<string>();
  await resolveChain(store, request, touched).catch(() => undefined);
  return [...touched];
}

/** What a cluster's chain reaches, typed: the identities (in chain order) and the Secrets' names. */
export interface ChainReach {
  /** With `apiGroup` for CAPA's identities. */
  identities: LinkName[];
  secrets: string[];
}

/** `chainDependencies`, typed: for indexes that map an identity or a Secret to the clusters reaching it. */
export async function chainReach(store: IdentityStore, request: ChainRequest): Promise<ChainReach> {
  const reach: ChainReach = { identities: [], secrets: [] };
  await resolveVisiting(store, request, {
    identity: (ref) => reach.identities.push({ ...ref }),
    secret: (name) => reach.secrets.push(name),
  }).catch(() => undefined);
  return reach;
}
