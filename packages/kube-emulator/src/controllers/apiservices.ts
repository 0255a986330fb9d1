import { request as httpsRequest } from 'node:https';
import { goNetworkError } from '../admission/call.js';
import { isBackend, resolveBackend, serviceReference } from '../aggregation/backend.js';
import type { FrontProxy } from '../aggregation/front-proxy.js';
import { identityHeaders, tlsOptions } from '../aggregation/proxy.js';
import { apiServices, availableCondition } from '../resources/builtins/apiregistration.js';
import { services } from '../resources/builtins/services.js';
import type { Objects } from '../storage/objects.js';
import type { StoreEvent } from '../storage/store.js';
import { deepEqual, isObject, objectAt, text, type JsonObject } from '../util/json.js';

/** kube-aggregator re-checks every APIService this often (its informer's resync). */
const RESYNC_MS = 30_000;
/** The first retry of an unavailable APIService; each next one waits twice as long, up to RETRY_MAX_MS. */
const RETRY_MS = 50;
const RETRY_MAX_MS = 5_000;
/** The discovery probe's timeout, as kube-aggregator's. */
const PROBE_TIMEOUT_MS = 5_000;

interface Verdict {
  status: 'True' | 'False';
  reason: string;
  message: string;
  /** The probe's APIResourceList, kept for aggregated discovery. */
  resources?: JsonObject;
}

/** The local availability controller's verdict on an APIService served by the API server itself. */
const LOCAL: Verdict = { status: 'True', reason: 'Local', message: 'Local APIServices are always available' };

const KUBE_AGGREGATOR = { name: 'system:kube-aggregator', uid: '', groups: ['system:masters'] };

/**
 * kube-aggregator's availability controllers: a local APIService (no Service) is Available at once;
 * one with a Service when a GET of `/apis/<group>/<version>` on its backend (TLS unverified, as
 * kube-aggregator's probe, with the front proxy's certificate) answers 2xx. Checked when the
 * APIService or its Service changes, every 30 s, and with a doubling delay (up to 5 s, where
 * kube-aggregator waits up to 30 s) while unavailable.
 */
export class ApiServiceAvailability {
  private readonly retries = new Map<string, { timer: NodeJS.Timeout; delay: number }>();
  private readonly running = new Set<string>();
  private readonly again = new Set<string>();
  /** While the controller writes a status: its own change needs no new check. */
  private writing = false;
  private stopped = false;
  private readonly discovered = new Map<string, JsonObject>();
  private readonly resync: NodeJS.Timeout;

  constructor(
    private readonly objects: Objects,
    private readonly frontProxy: FrontProxy,
  ) {
    this.resync = setInterval(() => this.checkAll(), RESYNC_MS).unref();
  }

  /** The APIResourceList each available APIService's backend last answered the probe with. */
  resourcesOf(name: string): JsonObject | undefined {
    return this.discovered.get(name);
  }

  observe(event: StoreEvent): void {
    if (event.storageKey === apiServices.storageKey) {
      if (this.writing) return;
      const name = text(objectAt(event.object, 'metadata')?.name);
      if (event.type === 'DELETED') this.forget(name);
      else this.check(name);
    } else if (event.storageKey === services.storageKey) {
      const metadata = objectAt(event.object, 'metadata');
      for (const [name, apiService] of this.objects.store.list(apiServices.storageKey)) {
        const reference = serviceReference(apiService);
        if (reference?.namespace === metadata?.namespace && reference?.name === metadata?.name) this.check(name);
      }
    }
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.resync);
    for (const { timer } of this.retries.values()) clearTimeout(timer);
    this.retries.clear();
  }

  private checkAll(): void {
    for (const [name] of this.objects.store.list(apiServices.storageKey)) this.check(name);
  }

  private forget(name: string): void {
    clearTimeout(this.retries.get(name)?.timer);
    this.retries.delete(name);
    this.discovered.delete(name);
  }

  /** One check at a time per APIService; a change during one starts another after it. */
  private check(name: string): void {
    if (this.running.has(name)) {
      this.again.add(name);
      return;
    }
    this.running.add(name);
    void this.run(name)
      .catch((error: unknown) => {
        process.stderr.write(
          `kube-emulator: the APIService availability check failed: ${error instanceof Error ? error.message : String(error)}\n`,
        );
      })
      .finally(() => {
        this.running.delete(name);
        if (this.again.delete(name)) this.check(name);
      });
  }

  private async run(name: string): Promise<void> {
    const apiService = this.objects.store.get(apiServices.storageKey, undefined, name);
    if (!apiService) return;
    if (!serviceReference(apiService)) {
      this.record(name, LOCAL);
      return;
    }
    const verdict = await this.probe(apiService);
    if (this.stopped) return;
    this.record(name, verdict);
    if (verdict.status === 'True') {
      clearTimeout(this.retries.get(name)?.timer);
      this.retries.delete(name);
      return;
    }
    const delay = Math.min((this.retries.get(name)?.delay ?? RETRY_MS / 2) * 2, RETRY_MAX_MS);
    clearTimeout(this.retries.get(name)?.timer);
    this.retries.set(name, { timer: setTimeout(() => this.check(name), delay).unref(), delay });
  }

  private probe(apiService: JsonObject): Promise<Verdict> {
    const backend = resolveBackend(this.objects.store, apiService);
    if (!isBackend(backend)) return Promise.resolve({ status: 'False', ...backend });
    const spec = objectAt(apiService, 'spec')!;
    const path = `/apis/${text(spec.group)}/${text(spec.version)}`;
    const shown = `https://${backend.shownAddress}${path}`;
    const failed = (why: string): Verdict => ({
      status: 'False',
      reason: 'FailedDiscoveryCheck',
      message: `failing or missing response from ${shown}: ${why}`,
    });
    if (backend.address === undefined) {
      return Promise.resolve(
        failed(`Get "${shown}": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`),
      );
    }
    const target = new URL(`https://${backend.address}${path}`);
    return new Promise((resolve) => {
      const call = httpsRequest(
        target,
        {
          headers: identityHeaders(KUBE_AGGREGATOR),
          timeout: PROBE_TIMEOUT_MS,
          // A new connection each time, as kube-aggregator builds a new transport for each check.
          agent: false,
          ...tlsOptions(this.frontProxy, backend, false),
        },
        (answer) => {
          const chunks: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => chunks.push(chunk));
          answer.on('error', (error) => resolve(failed(`Get "${shown}": ${error.message}`)));
          answer.on('end', () => {
            const status = answer.statusCode ?? 0;
            if (status < 200 || status >= 300) {
              resolve(failed(`bad status from ${shown}: ${status}`));
              return;
            }
            resolve({ status: 'True', reason: 'Passed', message: 'all checks passed', resources: parsed(chunks) });
          });
        },
      );
      call.on('timeout', () => call.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })));
      call.on('error', (error: NodeJS.ErrnoException) =>
        resolve(
          failed(
            `Get "${shown}": ${error.code === 'ETIMEDOUT' ? 'context deadline exceeded (Client.Timeout exceeded while awaiting headers)' : goNetworkError(error, target)}`,
          ),
        ),
      );
      call.end();
    });
  }

  /** Writes the Available condition when it changed (its transition time only when its status did). */
  private record(name: string, verdict: Verdict): void {
    const apiService = this.objects.store.get(apiServices.storageKey, undefined, name);
    if (!apiService) return;
    if (verdict.resources) this.discovered.set(name, verdict.resources);
    else this.discovered.delete(name);
    const old = availableCondition(apiService);
    const condition: JsonObject = {
      type: 'Available',
      status: verdict.status,
      lastTransitionTime:
        old?.status === verdict.status
          ? (old.lastTransitionTime ?? null)
          : new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
      reason: verdict.reason,
      message: verdict.message,
    };
    if (old && deepEqual(old, condition)) return;
    const status = objectAt(apiService, 'status') ?? {};
    const others = (Array.isArray(status.conditions) ? status.conditions : []).filter(
      (entry) => isObject(entry) && entry.type !== 'Available',
    );
    this.writing = true;
    try {
      this.objects.settle(
        apiServices,
        { ...apiService, status: { ...status, conditions: [...others, condition] } },
        'status',
      );
    } finally {
      this.writing = false;
    }
  }
}

function parsed(chunks: Buffer[]): JsonObject | undefined {
  try {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
    return isObject(body) ? body : undefined;
  } catch {
    return undefined;
  }
}
