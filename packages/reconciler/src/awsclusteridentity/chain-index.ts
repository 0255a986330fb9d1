import type { AWSCluster } from '@keymaster/api';
import { identityId, refGroup, type ChainReach, type LinkName } from '@keymaster/identity';
import { keyOf, type Request } from '../runtime/controller.js';
import { clusterRequest } from './dependents.js';

/** The clusters of one entry, by work-queue key. */
type Clusters = Map<string, Request>;

const NOTHING: ChainReach = { identities: [], secrets: [] };

/** An identity's entry: kind, name and group (CAPA's and Keymaster's of one name are two), any namespace. */
const entryOf = (identity: LinkName): string => identityId(identity.kind, identity.name, undefined, refGroup(identity));

/**
 * Which AWSClusters' chains reach each identity and each Secret (a chain that stops at a missing
 * identity counts it, so that creating it wakes the cluster), kept as clusters, identities and
 * namespaces change: an event then costs the clusters it affects, not a walk of every chain.
 * Each cluster's reach is walked again when the cluster changes, or when something its chain
 * reaches or its namespace changes (a chain edit moves clusters between entries).
 */
export class ChainIndex {
  readonly #reachOf: (cluster: AWSCluster) => Promise<ChainReach>;
  readonly #reach = new Map<string, ChainReach>();
  readonly #byIdentity = new Map<string, Clusters>();
  readonly #bySecret = new Map<string, Clusters>();
  /** The latest walk of each cluster: an older walk still under way when a newer starts is dropped. */
  readonly #walks = new Map<string, number>();
  #walked = 0;

  /** `reachOf` walks one cluster's chain in the caches (`chainReach`). */
  constructor(reachOf: (cluster: AWSCluster) => Promise<ChainReach>) {
    this.#reachOf = reachOf;
  }

  /**
   * Walks the cluster's chain again and files it under what it reaches now. Resolves to the
   * identities it reached before or reaches now but not both: their users changed.
   */
  async index(cluster: AWSCluster): Promise<LinkName[]> {
    const request = clusterRequest(cluster);
    const key = keyOf(request);
    const walk = ++this.#walked;
    this.#walks.set(key, walk);
    const reach = await this.#reachOf(cluster);
    if (this.#walks.get(key) !== walk) return [];
    this.#walks.delete(key);
    return this.#file(key, request, reach);
  }

  /** Forgets a deleted cluster; returns the identities it reached. */
  remove(cluster: AWSCluster): LinkName[] {
    const request = clusterRequest(cluster);
    const key = keyOf(request);
    this.#walks.delete(key);
    return this.#file(key, request, NOTHING);
  }

  /** The clusters whose chain reaches the identity (`apiGroup` CAPA's for CAPA's). */
  clustersReaching(identity: LinkName): Request[] {
    return [...(this.#byIdentity.get(entryOf(identity))?.values() ?? [])];
  }

  /** The clusters whose chain reaches the Secret (of the controller's namespace, or CAPA's). */
  clustersReachingSecret(name: string): Request[] {
    return [...(this.#bySecret.get(name)?.values() ?? [])];
  }

  /** What the cluster's chain reached at its latest walk. */
  reachOf(request: Request): ChainReach {
    return this.#reach.get(keyOf(request)) ?? NOTHING;
  }

  #file(key: string, request: Request, reach: ChainReach): LinkName[] {
    const before = this.#reach.get(key) ?? NOTHING;
    for (const identity of before.identities) removeFrom(this.#byIdentity, entryOf(identity), key);
    for (const secret of before.secrets) removeFrom(this.#bySecret, secret, key);
    if (reach === NOTHING) this.#reach.delete(key);
    else this.#reach.set(key, reach);
    for (const identity of reach.identities) addTo(this.#byIdentity, entryOf(identity), key, request);
    for (const secret of reach.secrets) addTo(this.#bySecret, secret, key, request);
    // An identity the cluster reaches before and after keeps its users: enqueueing it again would only
    // repeat its reconcile (and its DeletionBlocked event) for every cluster an edit walks again.
    return unique([...missingFrom(reach, before), ...missingFrom(before, reach)]);
  }
}

function addTo(entries: Map<string, Clusters>, name: string, key: string, request: Request): void {
  let clusters = entries.get(name);
  if (!clusters) entries.set(name, (clusters = new Map<string, Request>()));
  clusters.set(key, request);
}

/** An entry left empty is dropped: names deleted long ago hold no memory. */
function removeFrom(entries: Map<string, Clusters>, name: string, key: string): void {
  const clusters = entries.get(name);
  if (!clusters) return;
  clusters.delete(key);
  if (clusters.size === 0) entries.delete(name);
}

/** The identities `from` reaches that `other` does not. */
const missingFrom = (other: ChainReach, from: ChainReach): LinkName[] =>
  from.identities.filter((identity) => !other.identities.some((b) => entryOf(b) === entryOf(identity)));

function unique(identities: LinkName[]): LinkName[] {
  return [...new Map(identities.map((identity) => [entryOf(identity), identity])).values()];
}
