import { expect } from 'chai';
import type { TagFailure } from '../../src/index.js';
import { taggingEvents } from '../../src/report/events.js';
import { instanceArn, owned, planFor } from '../fixtures.js';

const ACCOUNT = '111122223333';
const full = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`other-${i}`, 'x']));

describe('taggingEvents', () => {
  it('raises none when nothing was applied and nothing failed', () => {
    const plan = planFor({
      clusterTags: { team: 'a' },
      resources: { [instanceArn('i-1')]: { ...owned(), team: 'a' } },
    });
    expect(taggingEvents(plan, { accountId: ACCOUNT, applied: [], failed: [] })).to.deep.equal([]);
  });

  it('warns of resources over the tag limit, naming the tags held back', () => {
    const plan = planFor({
      clusterTags: { team: 'a', env: 'dev' },
      resources: { [instanceArn('i-full')]: { ...owned(), ...full } },
    });
    expect(taggingEvents(plan, { accountId: ACCOUNT, applied: [], failed: [] })).to.deep.equal([
      {
        type: 'Warning',
        reason: 'TagLimitExceeded',
        message: `1 resource would carry more than 50 user tags; not added: env, team (${instanceArn('i-full')})`,
      },
    ]);
  });

  it('groups failures by kind, code, action and region, names a few resources and counts the rest', () => {
    const plan = planFor({ clusterTags: { team: 'a' }, resources: {} });
    const failure = (id: string, region: string, code = 'ThrottledException'): TagFailure => ({
      arn: instanceArn(id, region),
      region,
      action: 'tag:TagResources',
      kind: 'Throttled',
      code,
      message: 'Rate exceeded',
      keys: ['team'],
    });
    const failed = [
      ...['i-1', 'i-2', 'i-3', 'i-4', 'i-5'].map((id) => failure(id, 'eu-west-1')),
      failure('i-6', 'us-east-1'),
      failure('i-7', 'eu-west-1', 'RequestLimitExceeded'),
    ];
    const events = taggingEvents(plan, { accountId: ACCOUNT, applied: [], failed });
    expect(events.map(({ message }) => message)).to.deep.equal([
      `tag:TagResources failed for 5 resources in account ${ACCOUNT}, region eu-west-1: ThrottledException: Rate exceeded ` +
        `(${instanceArn('i-1')}, ${instanceArn('i-2')}, ${instanceArn('i-3')} and 2 more)`,
      `tag:TagResources failed for 1 resource in account ${ACCOUNT}, region us-east-1: ThrottledException: Rate exceeded ` +
        `(${instanceArn('i-6', 'us-east-1')})`,
      `tag:TagResources failed for 1 resource in account ${ACCOUNT}, region eu-west-1: RequestLimitExceeded: Rate exceeded ` +
        `(${instanceArn('i-7')})`,
    ]);
    expect(new Set(events.map(({ type, reason }) => `${type} ${reason}`))).to.deep.equal(
      new Set(['Warning TaggingFailed']),
    );
  });

  it('cuts messages to 1,000 characters', () => {
    const plan = planFor({ clusterTags: { team: 'a' }, resources: {} });
    const long: TagFailure = {
      arn: instanceArn('i-1'),
      region: 'eu-west-1',
      action: 'tag:TagResources',
      kind: 'Rejected',
      code: 'InvalidParameterException',
      message: 'x'.repeat(2_000),
      keys: ['team'],
    };
    const [event] = taggingEvents(plan, { accountId: ACCOUNT, applied: [], failed: [long] });
    expect(event!.message).to.have.length(1_000);
    expect(event!.message.endsWith('…')).to.equal(true);
  });
});
