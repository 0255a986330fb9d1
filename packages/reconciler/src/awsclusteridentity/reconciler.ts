import { isDeepStrictEqual } from 'node:util';
import type { V1Secret } from '@kubernetes/client-node';
import {
  EventReason,
  type AWSAccountBinding,
  type AWSCluster,
  type AWSClusterIdentityStatus,
  type IdentityKind,
} from '@keymaster/api';
import {
  identityId,
  isNamespacedKind,
  providerOf,
  servesCluster,
  type ControllerCredentialsCheck,
  type IdentityObject,
} from '@keymaster/identity';
import { setCondition } from '../awscluster/conditions.js';
import type { IdentitySightings } from '../awscluster/identity-sightings.js';
import type { EventRecorder } from '../kube/events.js';
import { holds, withFinalizer, withoutFinalizer, type Finalizer } from '../kube/finalizers.js';
import type { KubeWriter } from '../kube/writer.js';
import type { Logger } from '../logging.js';
import type { Request, Result } from '../runtime/controller.js';
import type { Informer } from '../runtime/informer.js';
import type { ChainIndex } from './chain-index.js';
import { clusterKey } from './dependents.js';
import { clusterUser, deletingNotice, type DeletingIdentities } from './deletions.js';
import { isConflict } from '../kube/errors.js';
import { CLAIMED_ACCOUNT, CLAIMED_AT, convertedBinding, legacyClaim } from './legacy-account-claim.js';
import { withoutLegacyOwner } from './legacy-owner.js';

/** Held while any AWSCluster's chain reaches the identity: deleting it then waits for those clusters. */
export const IDENTITY_FINALIZER: Finalizer = {
  name: 'infrastructure.keymaster.dev/identity-in-use',
  formerNames: ['identity.infrastructure.keymaster.dev/in-use'],
};

/** What the identity reconcile reads of the informer caches (`Caches` is one). */
export interface IdentityCaches {
  identity(kind: IdentityKind, name: string, namespace?: string): IdentityObject | undefined;
  allIdentities(): IdentityObject[];
  clusters: Pick<Informer<AWSCluster>, 'get'>;
  secrets: Pick<Informer<V1Secret>, 'get'>;
  accountBindings: Pick<Informer<AWSAccountBinding>, 'get'>;
}

/**
 * What the identity reconcile calls, each as narrow as its use: the controller passes the concrete
 * classes, unit tests the fakes of test/support.
 */
export interface IdentityReconcilerDeps {
  caches: IdentityCaches;
  /** The clusters whose chain reaches each identity. */
  chains: Pick<ChainIndex, 'clustersReaching'>;
  writer: Pick<
    KubeWriter,
    'setFinalizers' | 'replaceStatus' | 'setSecretOwners' | 'removeAnnotations' | 'createClusterScoped'
  >;
  events: Pick<EventRecorder, 'record'>;
  sightings: Pick<IdentitySightings, 'sighting'>;
  /** Who used each identity being deleted when the deletion was first seen (shared with the resolver). */
  deletions: Pick<DeletingIdentities, 'forget' | 'usersOf' | 'remember'>;
  controllerNamespace: string;
  /** The start-up check of the controller's own credentials; undefined until it is done. */
  controllerCredentials: () => ControllerCredentialsCheck | undefined;
  now: () => Date;
  logger: Logger;
  /** The tenancy label on identities: whose account claims of an earlier release were (`legacy-account-claim.ts`). */
  tenantLabel: string;
}

/**
 * The reconcile of one identity kind: in-use protection, status, and what earlier releases left (the
 * owner on its Secrets, an account claim in its annotations) converted.
 */
export class IdentityReconciler {
  constructor(
    private readonly kind: IdentityKind,
    private readonly deps: IdentityReconcilerDeps,
  ) {}

  readonly reconcile = async (request: Request): Promise<Result | undefined> => {
    const { caches, writer } = this.deps;
    const identity = caches.identity(this.kind, request.name, request.namespace);
    const id = identityId(this.kind, request.name, request.namespace);
    if (!identity?.metadata.deletionTimestamp) this.deps.deletions.forget(id);
    if (!identity) return undefined;
    for (const secret of providerOf(identity.kind).secrets(identity)) await this.#releaseSecret(identity, secret);
    // Its write brings the identity back (its annotations, or the new binding, change).
    if (await this.#convertAccountClaim(identity, id)) return undefined;
    const users = await this.#users(identity, id);
    const finalizers = identity.metadata.finalizers ?? [];
    // No finalizer may be added, nor renamed, once the identity is being deleted: a former name then stays.
    const named = identity.metadata.deletionTimestamp ? undefined : withFinalizer(finalizers, IDENTITY_FINALIZER);
    if (users.length > 0 && named) {
      await writer.setFinalizers(identity, named);
      return undefined;
    }
    if (users.length === 0 && holds(finalizers, IDENTITY_FINALIZER)) {
      await writer.setFinalizers(identity, withoutFinalizer(finalizers, IDENTITY_FINALIZER));
      return undefined;
    }
    const namespaces = new Set(users.map(({ metadata }) => metadata.namespace)).size;
    if (identity.metadata.deletionTimestamp && users.length > 0) {
      // Counts in the event, which others may read; names only in the log, for ops.
      this.deps.logger.info('identity deletion blocked', {
        identity: id,
        clusters: users.slice(0, 100).map(clusterKey),
      });
      await this.deps.events.record(
        identity,
        'Warning',
        EventReason.DeletionBlocked,
        `${id} is still used by ${users.length} AWSCluster(s) in ${namespaces} namespace(s): it is deleted once they no longer use it, and accepts no new ones meanwhile (the controller's log names them)`,
      );
    }
    await this.#writeStatus(identity, id, { clusters: users.length, namespaces });
    return undefined;
  };

  /** The clusters whose chain reaches the identity; while it is being deleted, only those it still serves. */
  async #users(identity: IdentityObject, id: string): Promise<AWSCluster[]> {
    const { caches, chains, deletions } = this.deps;
    const reaching = chains
      .clustersReaching({ kind: this.kind, name: identity.metadata.name ?? '' })
      .map(({ namespace, name }) => caches.clusters.get(name, namespace))
      .filter((cluster) => cluster !== undefined)
      // Another namespace's cluster reaching an identity of this name reaches its own namespace's.
      .filter(({ metadata }) => !isNamespacedKind(this.kind) || metadata.namespace === identity.metadata.namespace)
      .sort((a, b) => (clusterKey(a) < clusterKey(b) ? -1 : 1));
    if (!identity.metadata.deletionTimestamp) return reaching;
    const users = deletions.usersOf(identity) ?? (await this.#rememberUsers(identity, id, reaching));
    return reaching.filter((cluster) => servesCluster(identity, clusterUser(cluster), users));
  }

  /** The first sight of a deletion: who uses the identity now (created before it), each told by a Warning event. */
  async #rememberUsers(identity: IdentityObject, id: string, reaching: AWSCluster[]): Promise<ReadonlySet<string>> {
    const users = reaching.filter((cluster) => servesCluster(identity, clusterUser(cluster), undefined));
    for (const user of users)
      await this.deps.events.record(user, 'Warning', EventReason.IdentityDeleting, deletingNotice([id]));
    return this.deps.deletions.remember(identity, users.map(clusterKey));
  }

  /**
   * Removes the ownerReference earlier releases put on the identity's Secret, before anything else
   * (the in-use finalizer among it): while it is there, deleting the identity deletes the keys.
   */
  async #releaseSecret(identity: IdentityObject, name: string): Promise<void> {
    const { caches, writer, controllerNamespace } = this.deps;
    const secret = caches.secrets.get(name, controllerNamespace);
    const resourceVersion = secret?.metadata?.resourceVersion;
    const owners = withoutLegacyOwner(
      secret?.metadata?.ownerReferences ?? [],
      identity.metadata.name ?? '',
      identity.kind,
    );
    if (!resourceVersion || !owners) return;
    await writer.setSecretOwners(controllerNamespace, name, resourceVersion, owners);
    this.deps.logger.info('removed the ownerReference an earlier release set on the Secret of a static identity', {
      identity: identity.metadata.name,
      secret: name,
    });
  }

  /**
   * An account claim of an earlier release (its annotations) becomes the account's AWSAccountBinding,
   * once: the claim that owned the account creates it, with the tenants it let in; once the binding is
   * in the cache (clusters then read it instead of the claims), every claim of the account is removed.
   * A binding that exists already, the platform's, wins. Returns whether it wrote.
   */
  async #convertAccountClaim(identity: IdentityObject, id: string): Promise<boolean> {
    const { caches, writer, tenantLabel, logger } = this.deps;
    const accountId = identity.metadata.annotations?.[CLAIMED_ACCOUNT];
    if (accountId === undefined) return false;
    const claim = legacyClaim(accountId, caches.allIdentities(), tenantLabel);
    const owns = claim?.owner.kind === identity.kind && claim.owner.metadata.name === identity.metadata.name;
    if (caches.accountBindings.get(accountId) || !claim) {
      // Converted, or a claim that never counted (no tenant label): the annotations are memory of nothing.
      await writer.removeAnnotations(identity, [CLAIMED_ACCOUNT, CLAIMED_AT]);
      logger.info('removed the account claim an earlier release wrote on the identity', {
        identity: id,
        accountID: accountId,
      });
      return true;
    }
    // Another identity's claim owned the account: its conversion makes the binding, which enqueues this one.
    if (!owns) return false;
    const binding = convertedBinding(accountId, claim);
    try {
      await writer.createClusterScoped(binding);
    } catch (error) {
      // Created meanwhile (by the platform, or a previous attempt): it exists, which is all that matters.
      if (!isConflict(error)) throw error;
      return false;
    }
    const tenants = binding.spec.tenants!.join(', ');
    logger.info("converted the identity's account claim into an AWSAccountBinding", {
      identity: id,
      accountID: accountId,
      tenants,
    });
    await this.deps.events.record(
      identity,
      'Normal',
      EventReason.AccountClaimConverted,
      `The claim of AWS account ${accountId} by ${id} is now AWSAccountBinding ${accountId}, binding it to ${tenants}: ` +
        'the platform edits that object to change which tenants may act in the account',
    );
    return true;
  }

  /** Counts only: every tenant may read identities, so their status names no cluster or namespace. */
  async #writeStatus(
    identity: IdentityObject,
    id: string,
    users: { clusters: number; namespaces: number },
  ): Promise<void> {
    const sighting = this.deps.sightings.sighting(id);
    const status: AWSClusterIdentityStatus = {
      ...structuredClone(identity.status ?? {}),
      observedGeneration: identity.metadata.generation ?? 0,
      clusterCount: users.clusters,
      namespaceCount: users.namespaces,
    };
    const own = providerOf(identity.kind).status(identity, {
      renewedAt: sighting?.renewedAt,
      controllerCredentials: this.deps.controllerCredentials(),
    });
    for (const condition of own.conditions ?? [])
      status.conditions = setCondition(
        status.conditions ?? [],
        condition,
        identity.metadata.generation ?? 0,
        this.deps.now().toISOString(),
      );
    if (sighting) {
      status.accountID = sighting.accountId;
      status.principalARN = sighting.principalArn;
      if (own.lastAssumeRoleTime) status.lastAssumeRoleTime = own.lastAssumeRoleTime;
    }
    if (isDeepStrictEqual(identity.status ?? {}, status)) return;
    await this.deps.writer.replaceStatus({ ...identity, status });
  }
}
