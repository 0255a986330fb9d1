import type { Grant, RateLimiter } from '../rate-limit/rate-limiter.js';

/**
 * Sends one call for `arns` (the first attempt goes with `grant`, a token already taken) and answers
 * per ARN; `parts` are the ARNs of each submission the call serves, for an answer that must tell
 * them apart. An ARN missing from the answer has none (a read that did not list it).
 */
export type SendBatch<Outcome> = (
  arns: string[],
  grant: Grant,
  parts: readonly (readonly string[])[],
) => Promise<Map<string, Outcome>>;

/** What a batch waits for before it takes its token, while more submissions may join it. */
export type Hold = () => Promise<void>;

interface Batch<Outcome> {
  arns: Set<string>;
  parts: string[][];
  answer: Promise<Map<string, Outcome>>;
  /** Ends the hold: the batch is full. */
  full: () => void;
}

/**
 * Merges calls of the same content while they wait for the rate limiter: a call that finds a batch of
 * its content still waiting for its token joins it (up to `capacity` ARNs), else opens a new one,
 * which takes a token and then goes with every ARN that joined meanwhile. When the limiter has a
 * token at once, a batch goes on the next microtask: merging never makes a call wait longer than it
 * would alone, unless the opener passes a `hold`: the batch then waits for it, or until it is full,
 * before it asks for its token. `SessionBatchers` puts the credential set and the region in the
 * content, so a call only ever carries ARNs that the same credentials would have sent alone.
 */
export class Coalescer<Outcome> {
  readonly #open = new Map<string, Batch<Outcome>>();

  constructor(readonly capacity: number) {}

  /**
   * The answer for `arns`, sent in the batches of `content` they join. `send` is used when this call
   * opens a batch (the opener's client sends it); `limiter` gives the opener's token, after `hold`.
   */
  async submit(
    content: string,
    arns: readonly string[],
    limiter: RateLimiter,
    send: SendBatch<Outcome>,
    hold?: Hold,
  ): Promise<Map<string, Outcome>> {
    const pieces: Promise<[string, Outcome][]>[] = [];
    let rest = [...new Set(arns)];
    while (rest.length > 0) {
      const batch = this.#open.get(content) ?? this.#openBatch(content, limiter, send, hold);
      const part: string[] = [];
      const later: string[] = [];
      for (const arn of rest) {
        // An ARN another submission already put in the batch (a shared resource) costs no room.
        if (batch.arns.has(arn) || batch.arns.size < this.capacity) {
          batch.arns.add(arn);
          part.push(arn);
        } else {
          later.push(arn);
        }
      }
      batch.parts.push(part);
      if (batch.arns.size >= this.capacity) {
        this.#close(content, batch);
        batch.full();
      }
      pieces.push(
        batch.answer.then((answer) => part.flatMap((arn) => (answer.has(arn) ? [[arn, answer.get(arn)!]] : []))),
      );
      rest = later;
    }
    return new Map((await Promise.all(pieces)).flat());
  }

  #openBatch(content: string, limiter: RateLimiter, send: SendBatch<Outcome>, hold?: Hold): Batch<Outcome> {
    const arns = new Set<string>();
    const parts: string[][] = [];
    let full = () => {};
    const granted = hold
      ? Promise.race([hold(), new Promise<void>((resolve) => (full = resolve))]).then(() => limiter.acquire())
      : limiter.acquire();
    const answer = granted.then((grant) => {
      this.#close(content, batch);
      return send([...arns], grant, parts);
    });
    const batch = { arns, parts, answer, full: () => full() };
    this.#open.set(content, batch);
    return batch;
  }

  #close(content: string, batch: Batch<Outcome>): void {
    if (this.#open.get(content) === batch) this.#open.delete(content);
  }
}
