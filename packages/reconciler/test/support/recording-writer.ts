import type { V1OwnerReference } from '@kubernetes/client-node';
import type { Condition } from '@keymaster/api';
import type { KubeWriter } from '../../src/kube/writer.js';
import type { KeymasterObject } from '../../src/kube/resources.js';

type Write = 'setFinalizers' | 'replaceStatus' | 'setSecretOwners' | 'removeAnnotations' | 'createClusterScoped';

/** One write a reconcile made: which, on what, and what it set (finalizers, removed keys, owners). */
export interface Written {
  write: Write;
  /** Kind/name, or Secret/name for owners. */
  target: string;
  object?: KeymasterObject;
  finalizers?: string[];
  keys?: readonly string[];
  ownerReferences?: V1OwnerReference[];
}

const hasConditions = (status: unknown): status is { conditions?: Condition[] } =>
  typeof status === 'object' && status !== null;

/** The Kubernetes writes, recorded in order; `failing` makes a write throw what it holds. */
export class RecordingWriter implements Pick<KubeWriter, Write> {
  readonly writes: Written[] = [];
  readonly failing = new Map<Write, Error>();

  /** The writes, as `write Kind/name`: what a test compares. */
  get made(): string[] {
    return this.writes.map(({ write, target }) => `${write} ${target}`);
  }

  /** The status of the last replaceStatus. */
  get status(): unknown {
    return this.writes.findLast(({ write }) => write === 'replaceStatus')?.object?.status;
  }

  /** The reasons of the last written status's conditions, by condition type. */
  get reasons(): Record<string, string> {
    const { status } = this;
    const conditions = hasConditions(status) ? (status.conditions ?? []) : [];
    return Object.fromEntries(conditions.map(({ type, reason }) => [type, reason]));
  }

  setFinalizers<T extends KeymasterObject>(object: T, finalizers: string[]): Promise<T> {
    return this.#record({ write: 'setFinalizers', target: targetOf(object), object, finalizers }, object);
  }

  replaceStatus<T extends KeymasterObject>(object: T): Promise<T> {
    return this.#record({ write: 'replaceStatus', target: targetOf(object), object }, object);
  }

  removeAnnotations<T extends KeymasterObject>(object: T, keys: readonly string[]): Promise<T> {
    return this.#record({ write: 'removeAnnotations', target: targetOf(object), object, keys }, object);
  }

  createClusterScoped<T extends KeymasterObject>(object: T): Promise<T> {
    return this.#record({ write: 'createClusterScoped', target: targetOf(object), object }, object);
  }

  async setSecretOwners(
    _namespace: string,
    name: string,
    _resourceVersion: string,
    ownerReferences: V1OwnerReference[],
  ): Promise<void> {
    await this.#record({ write: 'setSecretOwners', target: `Secret/${name}`, ownerReferences }, undefined);
  }

  #record<T>(written: Written, answer: T): Promise<T> {
    this.writes.push(written);
    const failure = this.failing.get(written.write);
    return failure ? Promise.reject(failure) : Promise.resolve(answer);
  }
}

const targetOf = (object: KeymasterObject) => `${object.kind}/${object.metadata.name ?? ''}`;
