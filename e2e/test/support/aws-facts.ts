import type { AwsEmulator, CallRecord } from '@keymaster/aws-emulator';
import type { AccessKey } from './aws-world.js';

/** Calls that change tags on AWS. */
export const TAG_WRITES = ['tag:TagResources', 'tag:UntagResources', 'ec2:CreateTags', 'ec2:DeleteTags'];

/** What AWS holds and what it was asked, read from the aws-emulator: the facts tests assert on. */
export class AwsFacts {
  constructor(readonly emulator: AwsEmulator) {}

  /** The live tags of a resource. */
  tags(arn: string): Record<string, string> {
    const resource = this.emulator.world.listResources().find((item) => item.arn === arn);
    if (!resource) throw new Error(`no resource ${arn} in the aws-emulator`);
    return resource.tags;
  }

  /** The latest calls the emulator recorded (up to 1000), oldest first. */
  calls(filter: (call: CallRecord) => boolean = () => true): CallRecord[] {
    return this.emulator.calls.summary().recent.filter(filter);
  }

  /** How many calls of an action were made since the last reset, failed ones included. */
  count(action: string): number {
    return this.emulator.calls.summary().byAction[action] ?? 0;
  }

  /** How many calls a caller (an ARN) made since the last reset, failed ones included. */
  countBy(callerArn: string): number {
    const actions = this.emulator.calls.summary().byCaller[callerArn] ?? {};
    return Object.values(actions).reduce((sum, count) => sum + count, 0);
  }

  /** How many calls changed tags since the last reset. */
  tagWrites(): number {
    return TAG_WRITES.reduce((sum, action) => sum + this.count(action), 0);
  }

  /** Sets a resource's tags to exactly these, outside Keymaster, through the admin API (drift). */
  async setTags(arn: string, tags: Record<string, string>): Promise<void> {
    await this.#admin('POST', '/_emulator/resources', { arn, tags });
  }

  /** Gives a user a second access key, through the admin API (the first step of a rotation). */
  async addAccessKey(userArn: string, key: AccessKey): Promise<void> {
    await this.#admin('POST', '/_emulator/access-keys', { userArn, ...key });
  }

  /** Deletes an access key, through the admin API (the last step of a rotation). */
  async deleteAccessKey(accessKeyId: string): Promise<void> {
    await this.#admin('DELETE', `/_emulator/access-keys/${accessKeyId}`);
  }

  async #admin(method: string, path: string, body?: unknown): Promise<void> {
    const response = await fetch(`${this.emulator.url}${path}`, {
      method,
      ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  }
}
