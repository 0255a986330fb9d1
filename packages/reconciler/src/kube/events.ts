import { createHash } from 'node:crypto';
import { displayText } from '@keymaster/api';
import { CoreV1Api, PatchStrategy, setHeaderOptions, type KubeConfig } from '@kubernetes/client-node';
import { LRUCache } from 'lru-cache';

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
    const seen = this.#seen.get(key);
    try {
      if (seen) {
        seen.count += 1;
        await this.#core.patchNamespacedEvent(
          { namespace: seen.namespace, name: seen.name, body: { count: seen.count, lastTimestamp: now } },
          mergePatch,
        );
        return;
      }
      const name = `${target.metadata.name ?? 'object'}.${key.slice(0, 16)}`;
      await this.#core.createNamespacedEvent({
        namespace,
        body: {
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
        },
      });
      this.#seen.set(key, { namespace, name, count: 1 });
    } catch (error) {
      this.onError(error);
    }
  }
}
