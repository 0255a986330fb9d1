import { createHash } from 'node:crypto';
import { displayText } from '@keymaster/api';
import {
  ApiException,
  CoreV1Api,
  PatchStrategy,
  setHeaderOptions,
  type CoreV1Event,
  type KubeConfig,
} from '@kubernetes/client-node';
import { LRUCache } from 'lru-cache';
import { isConflict } from './errors.js';

export interface EventTarget {
  apiVersion: string;
  kind: string;
  metadata: { name?: string; namespace?: string; uid?: string; resourceVersion?: string };
}

export type EventType = 'Normal' | 'Warning';

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/**
 * Records core/v1 Events, deduplicated as client-go does: the same event for the same object again
 * bumps the existing Event's count and lastTimestamp instead of creating another. Events are best
 * effort: a failure is reported to `onError` and never fails a reconcile. Messages quote tenants'
 * input: their control and bidirectional characters are escaped here, whoever built them.
 */
export class EventRecorder {
  readonly #core: CoreV1Api;
  readonly #seen = new LRUCache<string, { namespace: string; name: string; count: number }>({ max: 4096 });

  constructor(
    kubeConfig: KubeConfig,
    private readonly component: string,
    private readonly now: () => Date,
    private readonly onError: (error: unknown) => void,
  ) {
    this.#core = kubeConfig.makeApiClient(CoreV1Api);
  }

  async record(target: EventTarget, type: EventType, reason: string, text: string): Promise<void> {
    const message = displayText(text);
    // Cluster-scoped objects' events go to "default", as the API server's own do.
    const namespace = target.metadata.namespace ?? 'default';
    const key = createHash('sha256')
      .update(JSON.stringify([target.metadata.uid, type, reason, message]))
      .digest('hex');
    const now = this.now();
    const name = `${target.metadata.name ?? 'object'}.${key.slice(0, 16)}`;
    try {
      const seen = this.#seen.get(key);
      if (seen && (await this.#bump(seen, now))) return;
      const event: CoreV1Event = {
        metadata: { name, namespace },
        involvedObject: {
          apiVersion: target.apiVersion,
          kind: target.kind,
          name: target.metadata.name,
          ...(target.metadata.namespace ? { namespace: target.metadata.namespace } : {}),
          uid: target.metadata.uid,
        },
        type,
        reason,
        message,
        source: { component: this.component },
        reportingComponent: this.component,
        count: 1,
        firstTimestamp: now,
        lastTimestamp: now,
      };
      if (await this.#create(namespace, event)) {
        this.#seen.set(key, { namespace, name, count: 1 });
        return;
      }
      // Recorded before this process started (the name is the same for the same event): count it.
      const existing = await this.#core.readNamespacedEvent({ namespace, name });
      const recorded = { namespace, name, count: existing.count ?? 1 };
      await this.#bump(recorded, now);
      this.#seen.set(key, recorded);
    } catch (error) {
      this.onError(error);
    }
  }

  /** One more of a recorded event; false when it is gone (events expire after an hour). */
  async #bump(seen: { namespace: string; name: string; count: number }, now: Date): Promise<boolean> {
    try {
      await this.#core.patchNamespacedEvent(
        { namespace: seen.namespace, name: seen.name, body: { count: seen.count + 1, lastTimestamp: now } },
        mergePatch,
      );
      seen.count += 1;
      return true;
    } catch (error) {
      if (error instanceof ApiException && error.code === 404) return false;
      throw error;
    }
  }

  /** Creates the event; false when an Event of that name exists already. */
  async #create(namespace: string, body: CoreV1Event): Promise<boolean> {
    try {
      await this.#core.createNamespacedEvent({ namespace, body });
      return true;
    } catch (error) {
      if (isConflict(error)) return false;
      throw error;
    }
  }
}
