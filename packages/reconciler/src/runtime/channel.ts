import type { InformerHandlers } from './informer.js';

/**
 * Events that come from inside the process rather than from an informer (a collaborator asking for
 * another look at an object), watched as an informer is: each `send` is an add (controller-runtime's
 * source.Channel).
 */
export class Channel<T> {
  readonly #handlers: InformerHandlers<T>[] = [];

  addHandlers(handlers: InformerHandlers<T>): void {
    this.#handlers.push(handlers);
  }

  send(event: T): void {
    for (const handlers of this.#handlers) handlers.add?.(event);
  }
}
