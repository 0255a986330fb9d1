import type {
  AWSCluster,
  AWSTagPolicy,
  AllowedNamespaces,
  Condition,
  LabelSelector,
  LedgerClaim,
  ResourceTag,
  TagConflict,
  TagSource,
} from '@keymaster/api';
import {
  AwsCredentialError,
  CONTROLLER_IDENTITY,
  checkChain,
  isNamespacedKind,
  linkName,
  providerOf,
  type IdentityObject,
  type LinkCheck,
} from '@keymaster/identity';
import { ClusterMemory, resolveEffectiveTags, standingLayers, tagLayers, type LayerName } from '@keymaster/tagging';
import { clusterNameOf } from '../awscluster/name-claim.js';
import { clusterLayerInputs } from '../awscluster/tag-input.js';
import { clusterUser } from '../awsclusteridentity/deletions.js';
import { ledgerOwner } from '../kube/ledger-claims.js';
import type { InspectContext } from './context.js';
import { latestEvents, type EventSummary } from './events.js';
import { clusterKeyOf } from './targets.js';
import {
  accountRefusal,
  failureOf,
  isForbidden,
  leaveOut,
  readable,
  readableChain,
  type Failure,
  type Unchecked,
} from './unchecked.js';

/** One link of the chain with its verdict: every reason it refuses, each with its fix. */
export interface LinkVerdict {
  /** CAPA's group for one of CAPA's identities. */
  apiGroup?: string;
  kind: string;
  name: string;
  exists: boolean;
  /** What the link acts with: its role, its Secret, or the controller's own credentials. */
  actsWith?: string;
  /** Its allowedNamespaces, for a person. */
  allows?: string;
  problems: Failure[];
  /** Why this user could not check the link here (the controller's verdict is in the conditions). */
  unchecked?: Failure;
}

/** Everything about why a cluster is as it is, and what to do about it. */
export interface Explanation {
  cluster: string;
  region: string;
  clusterName: string;
  /** Its labels, unless the user may not read the Namespace. */
  namespace: { name: string; labels?: Record<string, string> };
  /** As the controller last wrote them. */
  conditions: Condition[];
  /** The cluster's own identity first, then each source. */
  chain: LinkVerdict[];
  /** Resolved now, when every link allows the namespace; otherwise why not. */
  principal: { accountId: string; principalArn: string } | { failure: Failure };
  /** The tag layers in authority order, and the winning claim of each key. */
  layers: { layer: string; object: string; tags: readonly ResourceTag[] }[];
  /** The layers whose dropped keys `removalPolicy: Delete` removes (docs/tagging.md, "Layers that disappear"). */
  standing: LayerName[];
  winners: Record<string, TagSource>;
  /** The keys CAPA holds (the ClusterAPI layer): Keymaster neither writes nor removes them. */
  held: Record<string, TagSource>;
  conflicts: TagConflict[];
  /** Tags left out of the layers (layer, object, key, rule). */
  problems: string[];
  /** What the controller remembers of the cluster (its AWSClusterLedger); absent before its first claim. */
  ledger?: { claims: LedgerClaim[]; resourcesRemembered: number; legacyTagsConverted?: string };
  /** The cluster's latest events, oldest first. */
  events: EventSummary[];
  /** What to do, one line per failure found, in chain order. */
  fixes: string[];
  /** What this user may not read, so could not check: each with why and the fix. */
  unchecked: Unchecked[];
}

function describeSelector({ matchLabels = {}, matchExpressions = [] }: LabelSelector): string {
  const requirements = [
    ...Object.entries(matchLabels).map(([key, value]) => `${key}=${value}`),
    ...matchExpressions.map(({ key, operator, values = [] }) =>
      values.length > 0 ? `${key} ${operator} (${values.join(', ')})` : `${key} ${operator}`,
    ),
  ];
  return requirements.length > 0 ? `namespaces labelled ${requirements.join(', ')}` : 'selector {} (no namespace)';
}

/** allowedNamespaces as identity.md's table reads it. */
export function describeAllowed(allowed: AllowedNamespaces | null | undefined): string {
  if (allowed === undefined || allowed === null) return 'no namespace (allowedNamespaces absent)';
  const { list, selector } = allowed;
  if (list === undefined && selector === undefined) return 'every namespace ({})';
  return [
    ...(list === undefined ? [] : [list.length > 0 ? `list ${list.join(', ')}` : 'list [] (no namespace)']),
    ...(selector === undefined ? [] : [describeSelector(selector)]),
  ].join(' or ');
}

/** Whom an identity allows: a namespaced one its own namespace only, others their allowedNamespaces. */
const describeAllows = (identity: IdentityObject): string =>
  isNamespacedKind(identity.kind)
    ? `its own namespace only (${identity.metadata.namespace ?? ''})`
    : describeAllowed((identity.spec as { allowedNamespaces?: AllowedNamespaces | null }).allowedNamespaces);

const actsWith = ({ identity }: LinkCheck): string | undefined =>
  identity && providerOf(identity.kind).actsWith(identity);

const verdictOf = (check: LinkCheck): LinkVerdict => ({
  ...(check.apiGroup ? { apiGroup: check.apiGroup } : {}),
  kind: check.kind,
  name: check.name,
  exists: check.identity !== undefined,
  ...(check.identity ? { actsWith: actsWith(check), allows: describeAllows(check.identity) } : {}),
  problems: check.problems.map(failureOf),
});

/** The cluster's ledger as the controller reads it: one whose controlling owner is another cluster holds nothing for it. */
async function ledgerSummary(context: InspectContext, cluster: AWSCluster): Promise<Explanation['ledger']> {
  const { namespace, name, uid } = cluster.metadata;
  const ledger = (await context.allLedgers()).find(
    (candidate) =>
      candidate.metadata.namespace === namespace && candidate.metadata.name === name && ledgerOwner(candidate) === uid,
  );
  if (!ledger) return undefined;
  const { claims = [], memory, legacyTagsConverted } = ledger.spec;
  return {
    claims,
    resourcesRemembered: ClusterMemory.fromLedger(memory).size,
    ...(legacyTagsConverted ? { legacyTagsConverted } : {}),
  };
}

/** The chain as this user can see it without checking it: the links the controller checked, each unverified. */
async function unverifiedChain(
  context: InspectContext,
  cluster: AWSCluster,
  why: Failure,
  unchecked: Unchecked[],
): Promise<{ chain: LinkVerdict[]; identities: IdentityObject[] }> {
  const { links, identities } = await readableChain(context, cluster, unchecked);
  const chain = links.map(({ apiGroup, kind, name }, index): LinkVerdict => {
    const identity = identities[index];
    return {
      ...(apiGroup ? { apiGroup } : {}),
      kind,
      name,
      exists: true,
      ...(identity
        ? {
            actsWith: providerOf(identity.kind).actsWith(identity),
            allows: describeAllows(identity),
          }
        : {}),
      problems: [],
      unchecked: why,
    };
  });
  return { chain, identities: identities.filter((identity) => identity !== undefined) };
}

/** Where the chain was not checked here: what the controller last resolved, from status. */
function observedPrincipal(cluster: AWSCluster, why: Failure): Failure {
  const { accountID, principalARN } = cluster.status ?? {};
  const observed = accountID
    ? `; the controller last resolved account ${accountID} as ${principalARN ?? '-'} (status)`
    : '';
  return { message: `not resolved here: ${why.message}${observed}` };
}

/**
 * Why a cluster is as it is: every link of its identity chain with its verdict (all refusals at once,
 * from the store alone), the account and principal (resolved with STS only when every link allows the
 * namespace, as the controller would, then checked against the account's binding), the tag layers and
 * the claim that wins each key, its latest events, and the fix of every failure found. Writes nothing,
 * on AWS or Kubernetes. What the user may not read (a tenant: the namespace, the controller's Secrets)
 * is left out and listed in `unchecked`, the chain then shown as the controller last checked it.
 */
export async function explainCluster(
  context: InspectContext,
  cluster: AWSCluster,
  { withEvents = true }: { withEvents?: boolean } = {},
): Promise<Explanation> {
  const namespaceName = cluster.metadata.namespace ?? '';
  const identityRef = cluster.spec.identityRef ?? CONTROLLER_IDENTITY;
  const unchecked: Unchecked[] = [];
  const [namespace, policies, events, ledger, companion] = await Promise.all([
    readable(
      `the labels of namespace ${namespaceName} (what allowedNamespaces and tag policies' namespaceSelectors match)`,
      async () => (await context.store.getNamespace(namespaceName)) ?? { name: namespaceName, labels: {} },
      unchecked,
    ),
    readable('the global and selected tag layers (AWSTagPolicies)', () => context.tagPolicies(), unchecked),
    // The controller's inspect API leaves them to the caller: the controller may not list events.
    withEvents ? readable("the cluster's events", () => latestEvents(context.core, cluster.metadata), unchecked) : [],
    readable(
      "the cluster's AWSClusterLedger (what the controller remembers of it)",
      () => ledgerSummary(context, cluster),
      unchecked,
    ),
    readable(
      "whether the cluster is a Cluster API Cluster's companion (its Cluster), so that CAPA's tags are read",
      () => context.companion(cluster),
      unchecked,
    ),
  ]);
  /** What was read for the explanation, whichever way the chain is checked. */
  const read = { namespace, policies, events, ledger, companion, unchecked };
  let checks: LinkCheck[];
  try {
    checks = await checkChain(context.store, {
      namespace: namespaceName,
      identityRef,
      controllerNamespace: context.controllerNamespace,
      cluster: clusterUser(cluster),
    });
  } catch (error) {
    if (!isForbidden(error)) throw error;
    const why = failureOf(error);
    leaveOut(unchecked, 'the identity chain, link by link, and the account it resolves into', why);
    const { chain, identities } = await unverifiedChain(context, cluster, why, unchecked);
    return explanation(context, cluster, read, chain, identities, { failure: observedPrincipal(cluster, why) });
  }
  const chain = checks.map(verdictOf);
  const refusals = chain.reduce((sum, link) => sum + link.problems.length, 0);
  let principal: Explanation['principal'];
  if (refusals > 0) {
    principal = {
      failure: { message: `not resolved: the chain has ${refusals} problem(s) (above), so no AWS call was made` },
    };
  } else {
    try {
      const session = await context.resolver.resolve({
        namespace: namespaceName,
        identityRef,
        region: cluster.spec.region,
        cluster: clusterUser(cluster),
      });
      principal = { accountId: session.accountId, principalArn: session.principalArn };
      const refused = await readable(
        `whether account ${session.accountId} is bound to the identity's tenant (AWSAccountBinding)`,
        () => accountRefusal(context, checks[0]?.identity, session.accountId),
        unchecked,
      );
      if (refused) chain[0]?.problems.push(refused);
    } catch (error) {
      if (isForbidden(error)) {
        leaveOut(unchecked, 'the account and principal (resolving the chain)', failureOf(error));
        principal = { failure: observedPrincipal(cluster, failureOf(error)) };
      } else {
        principal = { failure: failureOf(error) };
        // AWS refused a link (AssumeRole, GetCallerIdentity): that link's verdict says so.
        const link = error instanceof AwsCredentialError ? error.link : undefined;
        chain.find(({ kind, name }) => kind === link?.kind && name === link.name)?.problems.push(failureOf(error));
      }
    }
  }
  const identities = checks.flatMap(({ identity }) => (identity ? [identity] : []));
  return explanation(context, cluster, read, chain, identities, principal);
}

/** The explanation from what was read and checked: the layers, the fixes. */
function explanation(
  context: InspectContext,
  cluster: AWSCluster,
  read: {
    namespace: { name: string; labels: Record<string, string> } | undefined;
    policies: AWSTagPolicy[] | undefined;
    events: EventSummary[] | undefined;
    companion: boolean | undefined;
    ledger: Explanation['ledger'];
    unchecked: Unchecked[];
  },
  chain: LinkVerdict[],
  identities: IdentityObject[],
  principal: Explanation['principal'],
): Explanation {
  const policies = clusterLayerInputs(
    read.policies ?? [],
    cluster,
    read.namespace?.labels ?? {},
    read.companion ?? false,
  );
  const layers = tagLayers({ ...policies, identities, cluster });
  const standing = standingLayers(
    { ...policies, identities },
    { now: context.now(), gracePeriodMs: context.layerGracePeriodMs },
  );
  const effective = resolveEffectiveTags(layers);
  const fixes = chain.flatMap((link) =>
    link.problems.map((problem) => `${linkName(link)}: ${problem.hint ?? problem.message}`),
  );
  const refusals = chain.some(({ problems, unchecked }) => problems.length > 0 || unchecked);
  if ('failure' in principal && !refusals && !fixes.length)
    fixes.push(principal.failure.hint ?? principal.failure.message);
  const conditions = cluster.status?.conditions ?? [];
  if (fixes.length === 0)
    for (const condition of conditions)
      if (condition.status === 'False' && condition.type !== 'Ready')
        fixes.push(`${condition.type} (${condition.reason}): ${condition.message}`);
  const namespaceName = cluster.metadata.namespace ?? '';
  return {
    cluster: clusterKeyOf(cluster),
    region: cluster.spec.region,
    clusterName: clusterNameOf(cluster),
    namespace: read.namespace ?? { name: namespaceName },
    conditions,
    chain,
    principal,
    layers,
    standing,
    winners: effective.tags,
    held: effective.held,
    conflicts: effective.conflicts,
    problems: effective.problems.map(({ message }) => message),
    ...(read.ledger ? { ledger: read.ledger } : {}),
    events: read.events ?? [],
    fixes,
    unchecked: read.unchecked,
  };
}
