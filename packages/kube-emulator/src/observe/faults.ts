import { ApiError } from '../api/status.js';
import { KubeEmulatorError } from '../errors.js';

/** A fault: which requests it hits (verb and resource, both optional) and what it does to them. */
export interface FaultRule {
  /** get, list, watch, create, update, patch, delete, deletecollection; absent: every verb. */
  verb?: string;
  /** The plural (`secrets`) or `plural.group`; absent: every resource. */
  resource?: string;
  /** Answer with this error status instead of serving the request. */
  error?: { code: number; reason?: string; message?: string };
  /** The share of matching requests that fail (0 to 1); 1 when absent. */
  rate?: number;
  /** Delay matching requests by this many milliseconds. */
  latencyMs?: number;
  /** Close matching watch connections every this many seconds. */
  dropWatchesEverySeconds?: number;
  /** Stop after hitting this many requests. */
  times?: number;
}

export interface Fault extends FaultRule {
  id: string;
  hits: number;
}

const REASONS: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  409: 'Conflict',
  410: 'Expired',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

function checkRule(rule: FaultRule): void {
  const problem = (field: string, why: string): never => {
    throw new KubeEmulatorError('ERR_KEYMASTER_KUBE_EMULATOR_FAULT', `fault ${field} ${why}`, {
      hint: 'see docs/emulators/kube-emulator.md#fault-injection for the fields of a fault',
    });
  };
  if (rule.error && (!Number.isInteger(rule.error.code) || rule.error.code < 400 || rule.error.code > 599)) {
    problem('error.code', `is ${String(rule.error.code)}: use an HTTP error code from 400 to 599`);
  }
  if (rule.rate !== undefined && !(rule.rate >= 0 && rule.rate <= 1))
    problem('rate', `is ${rule.rate}: use a number from 0 to 1`);
  if (rule.latencyMs !== undefined && !(rule.latencyMs >= 0))
    problem('latencyMs', 'must be a number of milliseconds >= 0');
  if (rule.dropWatchesEverySeconds !== undefined && !(rule.dropWatchesEverySeconds > 0)) {
    problem('dropWatchesEverySeconds', 'must be a number of seconds > 0');
  }
  if (!rule.error && rule.latencyMs === undefined && rule.dropWatchesEverySeconds === undefined) {
    problem('', 'does nothing: give it error, latencyMs or dropWatchesEverySeconds');
  }
}

/** What the faults decided for one request. */
export interface FaultOutcome {
  latencyMs: number;
  error?: ApiError;
}

/**
 * Injected faults: error answers at a rate, added latency, and watch connections dropped now or
 * periodically, each for a verb and resource.
 */
export class Faults {
  private readonly faults = new Map<string, Fault & { timer?: NodeJS.Timeout }>();
  private nextId = 1;

  constructor(private readonly dropWatches: (resource?: string) => number) {}

  add(rule: FaultRule): Fault {
    checkRule(rule);
    const fault: Fault & { timer?: NodeJS.Timeout } = { ...rule, id: String(this.nextId++), hits: 0 };
    if (rule.dropWatchesEverySeconds !== undefined) {
      fault.timer = setInterval(() => this.dropWatches(rule.resource), rule.dropWatchesEverySeconds * 1000);
      fault.timer.unref();
    }
    this.faults.set(fault.id, fault);
    return this.view(fault);
  }

  remove(id: string): boolean {
    const fault = this.faults.get(id);
    if (fault?.timer) clearInterval(fault.timer);
    return this.faults.delete(id);
  }

  clear(): void {
    for (const id of [...this.faults.keys()]) this.remove(id);
  }

  list(): Fault[] {
    return [...this.faults.values()].map((fault) => this.view(fault));
  }

  /** Closes the open watches (of one resource, or all) now. Returns how many were closed. */
  dropWatchesNow(resource?: string): number {
    return this.dropWatches(resource);
  }

  /** The latency and error to inflict on a request. */
  decide(verb: string, resource: string): FaultOutcome {
    const outcome: FaultOutcome = { latencyMs: 0 };
    for (const fault of this.faults.values()) {
      if (
        (fault.verb !== undefined && fault.verb !== verb) ||
        (fault.resource !== undefined && fault.resource !== resource)
      )
        continue;
      if (fault.times !== undefined && fault.hits >= fault.times) continue;
      if (!fault.latencyMs && !fault.error) continue;
      if (fault.error && Math.random() >= (fault.rate ?? 1)) continue;
      fault.hits++;
      outcome.latencyMs += fault.latencyMs ?? 0;
      if (fault.error && !outcome.error) {
        const { code } = fault.error;
        const reason = fault.error.reason ?? REASONS[code] ?? 'InternalError';
        const message = fault.error.message ?? `injected fault ${fault.id}: ${reason}`;
        outcome.error = new ApiError(code, reason, message, code === 429 ? { retryAfterSeconds: 1 } : {});
      }
    }
    return outcome;
  }

  private view(fault: Fault & { timer?: NodeJS.Timeout }): Fault {
    const { timer: _timer, ...view } = fault;
    return view;
  }
}
