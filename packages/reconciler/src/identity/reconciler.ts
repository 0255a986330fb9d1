import { isDeepStrictEqual } from 'node:util';
import type { AWSClusterIdentityStatus, IdentityKind } from '@keymaster/api';
import type { IdentityObject } from '@keymaster/identity';
import type { SessionUsage } from '../awscluster/session-usage.js';
import type { Caches } from '../kube/caches.js';
import type { EventRecorder } from '../kube/events.js';
import type { KubeWriter } from '../kube/writer.js';
import type { Logger } from '../logging.js';
import type { Request, Result } from '../runtime/controller.js';
import { dependentClusters } from './dependents.js';

/** Held while any AWSCluster's chain reaches the identity: deleting it then waits for those clusters. */
export const IDENTITY_FINALIZER = 'identity.infrastructure.keymaster.dev/in-use';
const LISTED_CLUSTERS = 100;

export interface IdentityReconcilerDeps {
  caches: Caches;
  writer: KubeWriter;
  events: EventRecorder;
  sessions: SessionUsage;
  controllerNamespace: string;
  logger: Logger;
}

/** The reconcile of one identity kind: in-use protection, the static Secret's owner, status. */
export class IdentityReconciler {
  constructor(
    private readonly kind: IdentityKind,
    private readonly deps: IdentityReconcilerDeps,
  ) {}

  readonly reconcile = async (request: Request): Promise<Result | undefined> => {
    const { caches, writer, controllerNamespace } = this.deps;
    const identity = caches.identity(this.kind, request.name);
    if (!identity) return undefined;
    const id = `${this.kind}/${request.name}`;
    const users = await dependentClusters(caches.identityStore(), controllerNamespace, caches.clusters.list(), id);
    const finalizers = identity.metadata.finalizers ?? [];
    const held = finalizers.includes(IDENTITY_FINALIZER);

    if (users.length > 0 && !held && !identity.metadata.deletionTimestamp) {
      await writer.setFinalizers(identity, [...finalizers, IDENTITY_FINALIZER]);
      return undefined;
    }
    if (users.length === 0 && held) {
      await writer.setFinalizers(
        identity,
        finalizers.filter((finalizer) => finalizer !== IDENTITY_FINALIZER),
      );
      return undefined;
    }
    if (identity.metadata.deletionTimestamp && users.length > 0) {
      await this.deps.events.record(
        identity,
        'Warning',
        'DeletionBlocked',
        `${id} is still used by ${users.length} AWSCluster(s) (${users.slice(0, 5).join(', ')}${users.length > 5 ? ', ...' : ''}): it is deleted once they no longer use it`,
      );
    }
    if (identity.kind === 'AWSClusterStaticIdentity') await this.#ownSecret(identity);
    await this.#writeStatus(identity, id, users);
    return undefined;
  };

  /** Makes the identity an owner of its Secret, so that clusterctl move carries the Secret along. */
  async #ownSecret(identity: Extract<IdentityObject, { kind: 'AWSClusterStaticIdentity' }>): Promise<void> {
    const { caches, writer, controllerNamespace } = this.deps;
    const secret = caches.secrets.get(identity.spec.secretRef, controllerNamespace);
    const uid = identity.metadata.uid;
    if (!secret?.metadata?.resourceVersion || !uid) return;
    const owners = secret.metadata.ownerReferences ?? [];
    if (owners.some((owner) => owner.uid === uid)) return;
    const others = owners.filter((owner) => !(owner.kind === identity.kind && owner.name === identity.metadata.name));
    await writer.setSecretOwners(controllerNamespace, identity.spec.secretRef, secret.metadata.resourceVersion, [
      ...others,
      { apiVersion: identity.apiVersion, kind: identity.kind, name: identity.metadata.name ?? '', uid },
    ]);
  }

  async #writeStatus(identity: IdentityObject, id: string, users: string[]): Promise<void> {
    const sighting = this.deps.sessions.sighting(id);
    const status: AWSClusterIdentityStatus = {
      ...structuredClone(identity.status ?? {}),
      observedGeneration: identity.metadata.generation ?? 0,
      clusterCount: users.length,
      clusters: users.slice(0, LISTED_CLUSTERS),
    };
    if (sighting) {
      status.accountID = sighting.accountId;
      status.principalARN = sighting.principalArn;
      if (identity.kind === 'AWSClusterRoleIdentity' && sighting.renewedAt)
        status.lastAssumeRoleTime = sighting.renewedAt.toISOString();
    }
    if (isDeepStrictEqual(identity.status ?? {}, status)) return;
    await this.deps.writer.replaceStatus({ ...identity, status });
  }
}
