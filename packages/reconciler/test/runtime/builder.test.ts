import { expect } from 'chai';
import {
  controllerFor,
  type ControllerDeclaration,
  type ControllerHost,
  type ListedSource,
} from '../../src/runtime/builder.js';
import { Channel } from '../../src/runtime/channel.js';
import { Controller, keyOf, type Request } from '../../src/runtime/controller.js';
import type { InformerHandlers } from '../../src/runtime/informer.js';
import { generationChanged } from '../../src/runtime/predicates.js';

type Thing = { metadata: { name: string; namespace?: string; generation?: number } };
const thing = (name: string, generation = 1, namespace = 'team-a'): Thing => ({
  metadata: { name, namespace, generation },
});

/** An informer stand-in: its events are told by hand. */
class FakeSource<T> implements ListedSource<T> {
  readonly handlers: InformerHandlers<T>[] = [];
  objects: T[] = [];
  addHandlers(handlers: InformerHandlers<T>): void {
    this.handlers.push(handlers);
  }
  list(): readonly T[] {
    return this.objects;
  }
  tell(event: (handlers: InformerHandlers<T>) => void): void {
    for (const handlers of this.handlers) event(handlers);
  }
}

/** A host that makes the controller as the manager does, and records every request enqueued. */
class RecordingHost implements ControllerHost {
  declaration: ControllerDeclaration | undefined;
  readonly enqueued: string[] = [];
  add(declaration: ControllerDeclaration): Controller {
    this.declaration = declaration;
    const controller = new Controller({
      name: declaration.name,
      workers: declaration.workers,
      reconcile: declaration.reconcile,
    });
    controller.enqueue = (request: Request) => this.enqueued.push(keyOf(request));
    declaration.watch(controller);
    return controller;
  }
}

const reconcile = () => Promise.resolve(undefined);

describe('controllerFor', () => {
  it('enqueues its own objects on add, delete, resync and parked, and on updates that pass its predicates', () => {
    const host = new RecordingHost();
    const things = new FakeSource<Thing>();
    controllerFor(host, 'thing', things).withPredicate(generationChanged).complete(reconcile);

    things.tell((handlers) => handlers.add?.(thing('added')));
    things.tell((handlers) => handlers.update?.(thing('status-only', 1), thing('status-only', 1)));
    things.tell((handlers) => handlers.update?.(thing('spec', 2), thing('spec', 1)));
    things.tell((handlers) => handlers.delete?.(thing('deleted')));
    things.tell((handlers) => handlers.resync?.(thing('resynced')));
    things.tell((handlers) => handlers.parked?.(thing('parked')));

    expect(host.enqueued).to.deep.equal([
      'team-a/added',
      'team-a/spec',
      'team-a/deleted',
      'team-a/resynced',
      'team-a/parked',
    ]);
  });

  it('maps events of a watched source to the requests they affect, the previous object given on updates', () => {
    const host = new RecordingHost();
    const owners = new FakeSource<Thing>();
    const owned = new FakeSource<Thing>();
    const seen: (string | undefined)[] = [];
    controllerFor(host, 'owner', owners)
      .watches(
        owned,
        (object, previous) => {
          seen.push(previous?.metadata.name);
          return [{ namespace: 'team-a', name: `owner-of-${object.metadata.name}` }];
        },
        generationChanged,
      )
      .complete(reconcile);

    owned.tell((handlers) => handlers.add?.(thing('x')));
    owned.tell((handlers) => handlers.update?.(thing('x', 1), thing('x', 1)));
    owned.tell((handlers) => handlers.update?.(thing('x', 2), thing('x', 1)));
    owned.tell((handlers) => handlers.delete?.(thing('x')));
    // A watched source's resyncs are not its watchers' business.
    owned.tell((handlers) => handlers.resync?.(thing('x')));

    expect(host.enqueued).to.deep.equal(['team-a/owner-of-x', 'team-a/owner-of-x', 'team-a/owner-of-x']);
    expect(seen).to.deep.equal([undefined, 'x', undefined]);
  });

  it('takes events sent on a channel as adds', () => {
    const host = new RecordingHost();
    const again = new Channel<Request>();
    controllerFor(host, 'thing', new FakeSource<Thing>())
      .watches(again, (request) => [request])
      .complete(reconcile);

    again.send({ namespace: 'team-b', name: 'y' });

    expect(host.enqueued).to.deep.equal(['team-b/y']);
  });

  it('declares to the host its workers, its shards, its outside work and the requests of its cached objects', () => {
    const host = new RecordingHost();
    const things = new FakeSource<Thing>();
    things.objects = [thing('a'), thing('b', 1, 'team-b')];
    const running = new Set(['team-a/a']);
    controllerFor(host, 'thing', things)
      .withWorkers(4)
      .shardedBy(({ namespace }) => (namespace === 'team-a' ? 0 : 1))
      .withOutsideWork({
        cancel: (request) => running.delete(keyOf(request)),
        isRunning: (request) => running.has(keyOf(request)),
      })
      .complete(reconcile);

    const declaration = host.declaration!;
    expect(declaration).to.include({ name: 'thing', workers: 4, reconcile });
    expect(declaration.requests().map(keyOf)).to.deep.equal(['team-a/a', 'team-b/b']);
    expect(declaration.requests().map((request) => declaration.shardOf!(request))).to.deep.equal([0, 1]);
    expect(declaration.outsideWork!.isRunning({ namespace: 'team-a', name: 'a' })).to.equal(true);
    declaration.outsideWork!.cancel({ namespace: 'team-a', name: 'a' });
    expect(running.size).to.equal(0);
  });

  it('declares one worker and no sharding unless told', () => {
    const host = new RecordingHost();
    controllerFor(host, 'thing', new FakeSource<Thing>()).complete(reconcile);

    expect(host.declaration!.workers).to.equal(1);
    expect(host.declaration!.shardOf).to.equal(undefined);
    expect(host.declaration!.outsideWork).to.equal(undefined);
  });
});
