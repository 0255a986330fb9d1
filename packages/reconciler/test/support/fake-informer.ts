import type { CachedObject, Informer } from '../../src/runtime/informer.js';

const keyOf = (object: CachedObject) => `${object.metadata?.namespace ?? ''}/${object.metadata?.name ?? ''}`;

/** An informer's reads over the objects a test puts in it: served ones, and parked ones (metadata only). */
export class FakeInformer<T extends CachedObject> implements Pick<Informer<T>, 'get' | 'list' | 'parked'> {
  readonly #served = new Map<string, T>();
  readonly #parked = new Map<string, T>();

  constructor(objects: readonly T[] = []) {
    for (const object of objects) this.put(object);
  }

  put(object: T): this {
    this.#served.set(keyOf(object), object);
    return this;
  }

  park(object: T): this {
    this.#parked.set(keyOf(object), object);
    return this;
  }

  get(name: string, namespace?: string): T | undefined {
    return this.#served.get(`${namespace ?? ''}/${name}`);
  }

  list(namespace?: string): readonly T[] {
    return [...this.#served.values()].filter(
      (object) => namespace === undefined || object.metadata?.namespace === namespace,
    );
  }

  parked(name: string, namespace: string): T | undefined {
    return this.#parked.get(`${namespace}/${name}`);
  }
}
