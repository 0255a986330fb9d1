import type { AWSCluster } from '@keymaster/api';
import type { IdentityObject, IdentitySession } from '@keymaster/identity';
import type { ClusterLayerInputs } from './tag-input.js';

type Versioned = { metadata: { uid?: string; generation?: number } };

/** An object's spec as of now: a re-created object has another uid, an edited one another generation. */
const versionOf = (object: Versioned | undefined) =>
  object ? `${object.metadata.uid ?? ''}@${object.metadata.generation ?? 0}` : '-';

/** The inputs of a cluster's tag work, in two parts. */
export interface TagTicketParts {
  /** Where discovery looks and who acts: the cluster's spec but its tags, account, principal, credential set, rivals. */
  discovery: string;
  /** The layers' tags: the cluster's own, the identity chain's and the tag policies' specs, whether CAPA's layer is read. */
  layers: string;
}

type TicketInput = {
  cluster: AWSCluster;
  session: IdentitySession;
  chain: readonly IdentityObject[];
  policies: ClusterLayerInputs;
  rivals: number;
};

/**
 * Names the inputs of a cluster's tag work: its spec, who acts in which account, the identity chain's
 * and the tag policies' specs (their generations, not their resourceVersions, which every status write
 * moves; the selected ones as they select the cluster now, which labels decide), whether its ClusterAPI
 * layer is read, and how many rival clusters claim its name. Work finished on the same ticket is what a reconcile now would do; any
 * change makes another ticket, and the work is done again.
 */
export const tagTicket = ({ discovery, layers }: TagTicketParts): string => JSON.stringify([discovery, layers]);

/** The parts `tagTicket` names: a change of `layers` alone is a tag edit, the cluster's own, a policy's or an identity's (`KnownResources`). */
export function tagTicketParts(input: TicketInput): TagTicketParts {
  const { cluster, session, chain, policies, rivals } = input;
  // The cluster's own tags are a layer: their edit finds the same resources. The rest of its spec
  // (region, extra regions, name, pause, CAPA's origin) says where and whether to look.
  const { additionalTags, ...placement } = cluster.spec;
  return {
    discovery: JSON.stringify([
      cluster.metadata.uid ?? '',
      placement,
      session.accountId,
      session.principalArn,
      session.key,
      rivals,
    ]),
    layers: JSON.stringify([
      additionalTags ?? {},
      chain.map(versionOf),
      versionOf(policies.policy),
      (policies.selected ?? []).map(versionOf),
      // Owner references and the namespace's labels move no generation.
      policies.clusterAPICompanion,
    ]),
  };
}
