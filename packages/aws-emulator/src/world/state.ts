import { ControlRequestError } from '../errors.js';
import { isRecord } from '../iam/policy.js';
import { parseArn } from './arn.js';
import { Directory } from './directory.js';
import { ResourceStore } from './resources.js';
import type { AccessKeySpec, World } from './types.js';
import { validateResource } from './validate.js';

/** A resource as the admin API and the library show it. */
export interface ResourceView {
  readonly arn: string;
  readonly tags: Record<string, string>;
}

/** A session STS issued, without its secrets. */
export interface SessionView {
  readonly accessKeyId: string;
  readonly arn: string;
  readonly roleArn: string;
  readonly sessionName: string;
  readonly sourceArn: string;
  readonly chained: boolean;
  readonly expiration: string;
}

/** The emulator's live world: who exists (the directory) and what is tagged (the resources). */
export class WorldState {
  readonly directory: Directory;
  readonly resources = new ResourceStore();

  constructor(world: World) {
    this.directory = new Directory(world);
    for (const account of world.accounts) {
      for (const resource of account.resources ?? []) this.resources.put(resource.arn, resource.tags ?? {});
    }
  }

  listResources(): ResourceView[] {
    return this.resources
      .all()
      .map((resource) => ({ arn: resource.arn, tags: Object.fromEntries(resource.tags) }))
      .sort((a, b) => (a.arn < b.arn ? -1 : 1));
  }

  /**
   * Adds resources or sets an existing resource's tags to exactly the given ones, as an edit made
   * outside the APIs would (drift). Accepts one `{arn, tags}` or a list of them.
   */
  putResources(input: unknown): ResourceView[] {
    const items = Array.isArray(input) ? input : [input];
    const checked = items.map((item, index) => {
      const arn = isRecord(item) && typeof item.arn === 'string' ? parseArn(item.arn) : undefined;
      if (arn === undefined || !this.directory.accountIds.has(arn.account)) {
        throw new ControlRequestError(
          400,
          `resources[${index}].arn must be the ARN of a resource in one of the world's accounts (${[...this.directory.accountIds].join(', ')})`,
          'Send {"arn": "arn:aws:ec2:<region>:<account>:instance/i-...", "tags": {...}} or a list of them.',
        );
      }
      return validateResource(item, `resources[${index}]`, arn.account, { resourceArns: new Set() });
    });
    return checked.map((spec) => {
      const resource = this.resources.put(spec.arn, spec.tags ?? {});
      return { arn: resource.arn, tags: Object.fromEntries(resource.tags) };
    });
  }

  deleteResource(arn: string): void {
    if (!this.resources.delete(arn)) {
      throw new ControlRequestError(404, `no resource ${arn}`, 'GET /_emulator/resources lists the resources.');
    }
  }

  addAccessKey(userArn: string, key: AccessKeySpec): void {
    this.directory.addAccessKey(userArn, key);
  }

  deleteAccessKey(accessKeyId: string): void {
    if (!this.directory.deleteAccessKey(accessKeyId)) {
      throw new ControlRequestError(404, `no user access key ${accessKeyId}`, 'Name an access key a user holds.');
    }
  }

  sessions(): SessionView[] {
    return this.directory.sessions().map(({ accessKeyId, session }) => ({
      accessKeyId,
      arn: session.arn,
      roleArn: session.role.arn,
      sessionName: session.sessionName,
      sourceArn: session.sourceArn,
      chained: session.chained,
      expiration: new Date(session.expiresAtMs).toISOString(),
    }));
  }
}
