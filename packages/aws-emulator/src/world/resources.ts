import { parseArn, type Arn } from './arn.js';

/** A taggable resource: its ARN and tags. `everTagged` follows AWS: GetResources lists resources that have or had tags. */
export interface Resource {
  readonly arn: string;
  readonly parts: Arn;
  readonly tags: Map<string, string>;
  everTagged: boolean;
}

const NONE: readonly Resource[] = Object.freeze([]);

/**
 * The resources of every account, by ARN, and EC2's by ID within an account and region. Each account
 * and region keeps its own index and its ARN order, since every list call reads one scope, many times a page.
 */
export class ResourceStore {
  readonly #byArn = new Map<string, Resource>();
  readonly #byEc2Id = new Map<string, Resource>();
  readonly #byScope = new Map<string, Map<string, Resource>>();
  /** Each scope's resources ordered by ARN, dropped when the scope gains or loses a resource (tags do not change it). */
  readonly #ordered = new Map<string, readonly Resource[]>();

  get(arn: string): Resource | undefined {
    return this.#byArn.get(arn);
  }

  ec2(account: string, region: string, id: string): Resource | undefined {
    return this.#byEc2Id.get(`${account}/${region}/${id}`);
  }

  /** The resources of one account and region, ordered by ARN. Shared between calls: never mutate it. */
  inScope(account: string, region: string): readonly Resource[] {
    const scope = scopeKey(account, region);
    const cached = this.#ordered.get(scope);
    if (cached !== undefined) return cached;
    const members = this.#byScope.get(scope);
    if (members === undefined) return NONE;
    const ordered = Object.freeze([...members.values()].sort(byArn));
    this.#ordered.set(scope, ordered);
    return ordered;
  }

  /** Those of `arns` that are resources of one account and region, once each, ordered by ARN as inScope orders them. */
  listedInScope(account: string, region: string, arns: Iterable<string>): Resource[] {
    const members = this.#byScope.get(scopeKey(account, region));
    const found = new Set<Resource>();
    for (const arn of arns) {
      const resource = members?.get(arn);
      if (resource !== undefined) found.add(resource);
    }
    return [...found].sort(byArn);
  }

  /** Adds a resource, or replaces an existing one's tags with exactly `tags` (an edit outside the API: drift). */
  put(arn: string, tags: Readonly<Record<string, string>>): Resource {
    const entries = Object.entries(tags);
    const existing = this.#byArn.get(arn);
    if (existing !== undefined) {
      existing.tags.clear();
      for (const [key, value] of entries) existing.tags.set(key, value);
      existing.everTagged ||= entries.length > 0;
      return existing;
    }
    const parts = parseArn(arn);
    if (parts === undefined) throw new TypeError(`not an ARN: ${arn}`);
    const resource: Resource = { arn, parts, tags: new Map(entries), everTagged: entries.length > 0 };
    this.#byArn.set(arn, resource);
    if (parts.service === 'ec2') this.#byEc2Id.set(`${parts.account}/${parts.region}/${parts.resourceId}`, resource);
    const scope = scopeKey(parts.account, parts.region);
    const members = this.#byScope.get(scope);
    if (members === undefined) this.#byScope.set(scope, new Map([[arn, resource]]));
    else members.set(arn, resource);
    this.#ordered.delete(scope);
    return resource;
  }

  delete(arn: string): boolean {
    const resource = this.#byArn.get(arn);
    if (resource === undefined) return false;
    this.#byArn.delete(arn);
    const { account, region, resourceId } = resource.parts;
    if (resource.parts.service === 'ec2') this.#byEc2Id.delete(`${account}/${region}/${resourceId}`);
    const scope = scopeKey(account, region);
    const members = this.#byScope.get(scope)!;
    members.delete(arn);
    if (members.size === 0) this.#byScope.delete(scope);
    this.#ordered.delete(scope);
    return true;
  }

  all(): Resource[] {
    return [...this.#byArn.values()];
  }
}

/** Accounts and regions never hold a `/` (see parseArn), so the key is unambiguous. */
function scopeKey(account: string, region: string): string {
  return `${account}/${region}`;
}

function byArn(a: Resource, b: Resource): number {
  return a.arn < b.arn ? -1 : a.arn > b.arn ? 1 : 0;
}

/** Sets tags on a resource (adding or overwriting), marking it as tagged. */
export function setTags(resource: Resource, tags: Iterable<readonly [string, string]>): void {
  for (const [key, value] of tags) resource.tags.set(key, value);
  resource.everTagged = true;
}
