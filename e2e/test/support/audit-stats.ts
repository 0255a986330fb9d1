import { closeSync, openSync, readSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { Stats, type RequestCount, type StatsFilter } from '@keymaster/kube-emulator';

/** What counting needs of an `audit.k8s.io/v1` Event (level Metadata). */
interface AuditEvent {
  auditID: string;
  verb: string;
  user: { username: string };
  requestURI: string;
  objectRef?: { resource?: string; apiGroup?: string };
  annotations?: Record<string, string>;
}

const CHUNK = 1 << 20;

/**
 * The requests a real kube-apiserver answered, read from its audit log and counted as the
 * kube-emulator's Stats counts them: per user, verb and resource (`plural` or `plural.group`,
 * subresources under their resource, other paths by path), RBAC's refusals apart. A watch is one
 * request (its events share an auditID). The log is read on each question, from where it was left.
 */
export class AuditStats {
  readonly #stats = new Stats();
  readonly #file: string;
  readonly #seen = new Set<string>();
  #offset = 0;
  #partial = '';
  readonly #decoder = new StringDecoder('utf8');

  constructor(file: string) {
    this.#file = file;
  }

  requests(filter: StatsFilter = {}): RequestCount[] {
    this.#catchUp();
    return this.#stats.requests(filter);
  }

  total(filter: StatsFilter = {}): number {
    this.#catchUp();
    return this.#stats.total(filter);
  }

  forbidden(filter: StatsFilter = {}): number {
    this.#catchUp();
    return this.#stats.forbidden(filter);
  }

  /** Forgets what was counted so far: later questions count only later requests. */
  reset(): void {
    this.#catchUp();
    this.#stats.reset();
  }

  #catchUp(): void {
    const fd = openSync(this.#file, 'r');
    try {
      const buffer = Buffer.alloc(CHUNK);
      for (let read; (read = readSync(fd, buffer, 0, CHUNK, this.#offset)) > 0;) {
        this.#offset += read;
        const lines = (this.#partial + this.#decoder.write(buffer.subarray(0, read))).split('\n');
        this.#partial = lines.pop()!;
        for (const line of lines) if (line) this.#count(JSON.parse(line) as AuditEvent);
      }
    } finally {
      closeSync(fd);
    }
  }

  #count(event: AuditEvent): void {
    if (this.#seen.has(event.auditID)) return;
    this.#seen.add(event.auditID);
    const { resource, apiGroup } = event.objectRef ?? {};
    const name = resource ? (apiGroup ? `${resource}.${apiGroup}` : resource) : event.requestURI.split('?')[0]!;
    const user = event.user.username;
    this.#stats.record(event.verb, name, user);
    if (event.annotations?.['authorization.k8s.io/decision'] === 'forbid')
      this.#stats.recordForbidden(event.verb, name, user);
  }
}
