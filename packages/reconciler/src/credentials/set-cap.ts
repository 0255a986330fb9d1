import { createHash } from 'node:crypto';
import { sessionPolicyOf, type AWSCredentialsRequest } from '@keymaster/api';

/** --max-credential-sets-per-namespace's default: room for many workloads, far from what one namespace could cost. */
export const DEFAULT_MAX_CREDENTIAL_SETS_PER_NAMESPACE = 50;

/** A request of the namespace: which set it needs, and its age. */
interface Entry {
  name: string;
  set: string;
  createdAt: string;
}

/** Whether a request's credential set is within its namespace's cap. */
export interface CapVerdict {
  admitted: boolean;
}

/**
 * What makes a request's credential set, from its spec alone (no chain walked, no STS call): requests
 * of one namespace that ask alike share one set, so each distinct answer is one set.
 */
function setOf({ spec }: AWSCredentialsRequest): string {
  const { kind, name } = spec.identityRef;
  const asked =
    spec.mode === 'WebIdentity'
      ? { mode: spec.mode, identity: { kind, name } }
      : { mode: 'Session', identity: { kind, name }, session: sessionPolicyOf(spec) };
  return createHash('sha256').update(JSON.stringify(asked)).digest('hex');
}

const older = (a: Entry, b: Entry) =>
  a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.name < b.name ? -1 : a.name > b.name ? 1 : 0;

/** One namespace's requests, the sets they ask for, and, while it is over the cap, those served. */
interface Namespace {
  entries: Map<string, Entry>;
  /** How many requests ask for each set. */
  sets: Map<string, number>;
  /** The sets served; undefined while every set fits. */
  served?: Set<string>;
  /** The oldest request of the youngest set served: a request younger than it cannot move the cap. */
  cutoff?: Entry;
}

/**
 * The cap on distinct credential sets per namespace (--max-credential-sets-per-namespace): the sets of
 * a namespace's oldest requests (creationTimestamp, then name) are served, up to the cap; requests that
 * need another set are refused before any STS call. Which requests win is decided by age, the same in
 * every replica and after every restart, never by who was reconciled first. Kept from the informer's
 * events; the requests a change moves across the cap are told, so that they are reconciled.
 */
export class CredentialSetCap {
  readonly #namespaces = new Map<string, Namespace>();

  constructor(
    readonly max: number,
    /** Told after every change of a namespace's requests, with those it moved across the cap (maybe none). */
    private readonly changed: (namespace: string, moved: string[]) => void,
  ) {}

  /** A request added or changed; being deleted, it no longer counts. */
  track(request: AWSCredentialsRequest): void {
    if (request.metadata.deletionTimestamp) {
      this.untrack(request);
      return;
    }
    const { namespace = '', name = '', creationTimestamp = '' } = request.metadata;
    const entry = { name, set: setOf(request), createdAt: creationTimestamp };
    let state = this.#namespaces.get(namespace);
    if (!state) this.#namespaces.set(namespace, (state = { entries: new Map(), sets: new Map() }));
    const before = state.entries.get(name);
    if (before?.set === entry.set) return;
    // The common case of a flood: a new request that the cap serves, or that is younger than every set served.
    const { served, cutoff } = state;
    if (!before && served && (served.has(entry.set) || older(cutoff!, entry) < 0)) {
      this.#add(state, entry);
      this.changed(namespace, []);
      return;
    }
    this.#changing(namespace, state, () => {
      if (before) this.#remove(state, before);
      this.#add(state, entry);
    });
  }

  untrack(request: AWSCredentialsRequest): void {
    const { namespace = '', name = '' } = request.metadata;
    const state = this.#namespaces.get(namespace);
    const entry = state?.entries.get(name);
    if (!state || !entry) return;
    this.#changing(namespace, state, () => this.#remove(state, entry));
    if (state.entries.size === 0) this.#namespaces.delete(namespace);
  }

  verdict(namespace: string, name: string): CapVerdict {
    const state = this.#namespaces.get(namespace);
    const entry = state?.entries.get(name);
    const served = state?.served;
    return { admitted: !entry || !served || served.has(entry.set) };
  }

  /** How many of the namespace's requests the cap refuses. */
  refused(namespace: string): number {
    const state = this.#namespaces.get(namespace);
    const served = state?.served;
    if (!served) return 0;
    return [...state.entries.values()].filter(({ set }) => !served.has(set)).length;
  }

  #add(state: Namespace, entry: Entry): void {
    state.entries.set(entry.name, entry);
    state.sets.set(entry.set, (state.sets.get(entry.set) ?? 0) + 1);
  }

  #remove(state: Namespace, entry: Entry): void {
    state.entries.delete(entry.name);
    const requests = state.sets.get(entry.set)! - 1;
    if (requests > 0) state.sets.set(entry.set, requests);
    else state.sets.delete(entry.set);
  }

  /** Applies a change, serves the sets of the oldest requests again, and tells which requests it moved. */
  #changing(namespace: string, state: Namespace, change: () => void): void {
    const admitted = (name: string) => this.verdict(namespace, name).admitted;
    const before = new Map([...state.entries.keys()].map((name) => [name, admitted(name)]));
    change();
    delete state.served;
    delete state.cutoff;
    if (state.sets.size > this.max) {
      const served = new Set<string>();
      for (const entry of [...state.entries.values()].sort(older)) {
        if (served.has(entry.set)) continue;
        if (served.size === this.max) break;
        served.add(entry.set);
        state.cutoff = entry;
      }
      state.served = served;
    }
    const moved = [...before].filter(([name, was]) => state.entries.has(name) && admitted(name) !== was);
    this.changed(
      namespace,
      moved.map(([name]) => name),
    );
  }
}
