/** One counter of the request statistics. */
export interface RequestCount {
  verb: string;
  resource: string;
  user: string;
  count: number;
  /** How many of them RBAC refused (403), with `authorization: 'RBAC'`. */
  forbidden: number;
}

export interface StatsFilter {
  verb?: string;
  resource?: string;
  user?: string;
}

/** Counts requests (and RBAC refusals) per verb, resource and user. Resources are named `plural` or `plural.group`. */
export class Stats {
  private readonly counts = new Map<string, RequestCount>();

  record(verb: string, resource: string, user: string): void {
    const key = `${verb}\n${resource}\n${user}`;
    const entry = this.counts.get(key);
    if (entry) entry.count++;
    else this.counts.set(key, { verb, resource, user, count: 1, forbidden: 0 });
  }

  /** Marks the request just recorded as refused by RBAC. */
  recordForbidden(verb: string, resource: string, user: string): void {
    const entry = this.counts.get(`${verb}\n${resource}\n${user}`);
    if (entry) entry.forbidden++;
  }

  /** The counters, optionally only those matching a filter, biggest first. */
  requests(filter: StatsFilter = {}): RequestCount[] {
    return [...this.counts.values()]
      .filter(
        (entry) =>
          (filter.verb === undefined || entry.verb === filter.verb) &&
          (filter.resource === undefined || entry.resource === filter.resource) &&
          (filter.user === undefined || entry.user === filter.user),
      )
      .map((entry) => ({ ...entry }))
      .sort((a, b) => b.count - a.count);
  }

  /** The number of requests matching a filter. */
  total(filter: StatsFilter = {}): number {
    return this.requests(filter).reduce((sum, entry) => sum + entry.count, 0);
  }

  /** The number of requests matching a filter that RBAC refused. */
  forbidden(filter: StatsFilter = {}): number {
    return this.requests(filter).reduce((sum, entry) => sum + entry.forbidden, 0);
  }

  reset(): void {
    this.counts.clear();
  }
}
