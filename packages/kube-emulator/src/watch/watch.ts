import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Representation } from '../api/negotiate.js';
import { gone, qualifiedResource, storageError } from '../api/status.js';
import { labelsOf } from '../resources/metadata.js';
import { apiVersionOf, type ResourceDef } from '../resources/types.js';
import type { FieldMatcher } from '../selectors/fields.js';
import type { LabelMatcher } from '../selectors/labels.js';
import type { Objects } from '../storage/objects.js';
import type { EventType, StoreEvent } from '../storage/store.js';
import { partialObject, toTable } from '../table/table.js';
import { objectAt, type JsonObject, text } from '../util/json.js';

export interface WatchRequest {
  resource: ResourceDef;
  namespace: string | undefined;
  labels: LabelMatcher;
  fields: FieldMatcher;
  /** Absent or "0": start with the current objects as ADDED events. */
  resourceVersion: string | undefined;
  /**
   * A watch list (WatchList, on from 1.34): true starts with the current objects as ADDED events, then a
   * bookmark that marks their end; false starts with none. Absent: as `resourceVersion` says.
   */
  sendInitialEvents?: boolean | undefined;
  allowBookmarks: boolean;
  timeoutSeconds: number | undefined;
  representation: Representation;
}

interface ActiveWatch {
  resource: ResourceDef;
  close: () => void;
}

const withResourceVersion = (object: JsonObject, resourceVersion: number): JsonObject => ({
  ...object,
  metadata: { ...objectAt(object, 'metadata'), resourceVersion: String(resourceVersion) },
});

/**
 * Streams changes to watchers (newline-delimited JSON events over a chunked response), with
 * resumption from a resourceVersion, selectors, bookmarks, timeouts, and 410 Gone past the history.
 */
export class WatchHub {
  private readonly active = new Set<ActiveWatch>();

  constructor(
    private readonly objects: Objects,
    private readonly bookmarkIntervalMs: number,
  ) {}

  get count(): number {
    return this.active.size;
  }

  /** Ends the watches of a resource (`plural` or `plural.group`), or all, now. Returns how many. */
  drop(resource?: string): number {
    let dropped = 0;
    for (const watch of [...this.active]) {
      if (resource === undefined || qualifiedResource(watch.resource) === resource) {
        watch.close();
        dropped++;
      }
    }
    return dropped;
  }

  closeAll(): void {
    this.drop();
  }

  open(watch: WatchRequest, request: IncomingMessage, response: ServerResponse): void {
    const { resource } = watch;
    const store = this.objects.store;
    const requested = watch.resourceVersion;
    const fromCurrent = requested === undefined || requested === '' || requested === '0';
    if (requested !== undefined && !fromCurrent && !/^[0-9]+$/.test(requested)) {
      throw storageError(
        `resourceVersion: Invalid value: ${JSON.stringify(requested)}: strconv.ParseUint: parsing ${JSON.stringify(requested)}: invalid syntax`,
      );
    }
    response.writeHead(200, {
      'Content-Type': 'application/json',
      'Transfer-Encoding': 'chunked',
      'Cache-Control': 'no-cache',
    });
    response.flushHeaders();
    const send = (type: EventType | 'BOOKMARK' | 'ERROR', object: JsonObject): void => {
      response.write(`${JSON.stringify({ type, object })}\n`);
    };
    const encode = (stored: JsonObject): JsonObject => this.encode(resource, stored, watch.representation);
    const matches = (object: JsonObject | undefined): boolean =>
      object !== undefined &&
      (!resource.namespaced ||
        watch.namespace === undefined ||
        objectAt(object, 'metadata')?.namespace === watch.namespace) &&
      watch.labels(labelsOf(object)) &&
      watch.fields(object);
    const deliver = (event: StoreEvent): void => {
      if (event.storageKey !== resource.storageKey) return;
      const now = matches(event.object);
      if (event.type === 'DELETED') {
        if (now) send('DELETED', encode(event.object));
        return;
      }
      // With selectors, an object that starts or stops matching is ADDED or DELETED for this watch;
      // one that stops is sent as it last matched, with the change's resourceVersion (as the watch cache does).
      const before = matches(event.previous);
      if (now) send(before ? 'MODIFIED' : 'ADDED', encode(event.object));
      else if (before) send('DELETED', encode(withResourceVersion(event.previous!, event.resourceVersion)));
    };

    const bookmark = (annotations?: Record<string, string>): void =>
      send('BOOKMARK', {
        kind: resource.kind,
        apiVersion: apiVersionOf(resource),
        metadata: { resourceVersion: String(store.resourceVersion), ...(annotations ? { annotations } : {}) },
      });
    if (watch.sendInitialEvents === true || (watch.sendInitialEvents === undefined && fromCurrent)) {
      for (const [, stored] of store.list(resource.storageKey, resource.namespaced ? watch.namespace : undefined)) {
        if (matches(stored)) send('ADDED', encode(stored));
      }
      // A watch list's end of the initial events, for clients that take bookmarks.
      if (watch.sendInitialEvents && watch.allowBookmarks) bookmark({ 'k8s.io/initial-events-end': 'true' });
    } else if (!fromCurrent) {
      const events = store.eventsSince(Number(requested));
      if (!events) {
        send('ERROR', gone(`too old resource version: ${requested} (${store.oldestResumable + 1})`).toStatus());
        response.end();
        return;
      }
      for (const event of events) deliver(event);
    }

    const unsubscribe = store.subscribe(deliver);
    const timers: NodeJS.Timeout[] = [];
    const active: ActiveWatch = {
      resource,
      close: () => {
        if (!this.active.delete(active)) return;
        unsubscribe();
        for (const timer of timers) clearTimeout(timer);
        response.end();
      },
    };
    this.active.add(active);
    if (watch.allowBookmarks) timers.push(setInterval(bookmark, this.bookmarkIntervalMs));
    if (watch.timeoutSeconds !== undefined) timers.push(setTimeout(active.close, watch.timeoutSeconds * 1000));
    request.on('close', active.close);
    response.on('close', active.close);
  }

  private encode(resource: ResourceDef, stored: JsonObject, representation: Representation): JsonObject {
    if (representation.kind === 'table') {
      const metadata = { resourceVersion: text(objectAt(stored, 'metadata')?.resourceVersion ?? '') };
      return toTable(
        resource,
        [stored],
        (object) => this.objects.serve(resource, object),
        representation.includeObject,
        metadata,
      );
    }
    if (representation.kind === 'partial') return partialObject(stored);
    return this.objects.serve(resource, stored);
  }
}
