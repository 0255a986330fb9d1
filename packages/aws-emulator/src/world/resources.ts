import { parseArn, type Arn } from './arn.js';

/** A taggable resource: its ARN and tags. `everTagged` follows AWS: GetResources lists resources that have or had tags. */
export interface Resource {
  readonly arn: string;
  readonly parts: Arn;
  readonly tags: Map<string, string>;
  everTagged: boolean;
}

/** The resources of every account, by ARN, and EC2's by ID within an account and region. */
export class ResourceStore {
  readonly #byArn = new Map<string, Resource>();
  readonly #byEc2Id = new Map<string, Resource>();

  get(arn: string): Resource | undefined {
    return this.#byArn.get(arn);
  }

  ec2(account: string, region: string, id: string): Resource | undefined {
    return this.#byEc2Id.get(`${account}/${region}/${id}`);
  }

  /** The resources of one account and region, ordered by ARN. */
  inScope(account: string, region: string): Resource[] {
    const found: Resource[] = [];
    for (const resource of this.#byArn.values()) {
      if (resource.parts.account === account && resource.parts.region === region) found.push(resource);
    }
    return found.sort((a, b) => (a.arn < b.arn ? -1 : a.arn > b.arn ? 1 : 0));
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
    return resource;
  }

  delete(arn: string): boolean {
    const resource = this.#byArn.get(arn);
    if (resource === undefined) return false;
    this.#byArn.delete(arn);
    const { account, region, resourceId } = resource.parts;
    if (resource.parts.service === 'ec2') this.#byEc2Id.delete(`${account}/${region}/${resourceId}`);
    return true;
  }

  all(): Resource[] {
    return [...this.#byArn.values()];
  }
}

/** Sets tags on a resource (adding or overwriting), marking it as tagged. */
export function setTags(resource: Resource, tags: Iterable<readonly [string, string]>): void {
  for (const [key, value] of tags) resource.tags.set(key, value);
  resource.everTagged = true;
}
