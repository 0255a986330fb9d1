import type { TagJob, TagResult, TagScheduler } from '../../src/awscluster/tag-scheduler.js';

/**
 * The tag scheduler, run by the test: submitted work waits until `finish` runs it (as the workers
 * would), then `take` hands its result to the next reconcile of the same inputs.
 */
export class FakeTagWork<T> implements Pick<TagScheduler<T>, 'cancel' | 'take' | 'submit'> {
  readonly #pending = new Map<string, TagJob<T>>();
  readonly #finished = new Map<string, { ticket: string; result: TagResult<T> }>();
  readonly cancelled: string[] = [];
  /** Every result a job ended with, in order: what the scheduler holds until the cluster's reconcile takes it. */
  readonly results: TagResult<T>[] = [];

  get pending(): number {
    return this.#pending.size;
  }

  submit(job: TagJob<T>): void {
    this.#pending.set(job.cluster, job);
  }

  take(cluster: string, ticket: string): TagResult<T> | undefined {
    const finished = this.#finished.get(cluster);
    if (finished?.ticket !== ticket) return undefined;
    this.#finished.delete(cluster);
    return finished.result;
  }

  cancel(cluster: string): void {
    this.cancelled.push(cluster);
    this.#pending.delete(cluster);
    this.#finished.delete(cluster);
  }

  /** Runs every pending job to its end. */
  async finish(): Promise<void> {
    for (const [cluster, job] of this.#pending) {
      this.#pending.delete(cluster);
      const result: TagResult<T> = await job
        .run(
          new AbortController().signal,
          () => 0,
          () => {},
        )
        .then(
          (outcome) => ({ outcome }),
          (error: unknown) => ({ error }),
        );
      this.results.push(result);
      this.#finished.set(cluster, { ticket: job.ticket, result });
    }
  }
}
