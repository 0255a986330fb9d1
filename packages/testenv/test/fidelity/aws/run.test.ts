import { expect } from 'chai';
import { Run } from './run.js';
import type { Side } from './sides.js';

/** A side that makes up the IDs given, in order; nothing is sent anywhere. */
function fakeSide(ids: string[]): Side {
  return {
    name: 'aws-emulator',
    url: 'http://127.0.0.1:1',
    controller: { accessKeyId: 'AKIAFAKE', secretAccessKey: 'fake' },
    create: () => Promise.resolve(ids.shift()!),
    close: () => Promise.resolve(),
  };
}

describe('normalizing what a side answered', () => {
  it('names made-up IDs by kind and order, everywhere they appear', async () => {
    const run = new Run(fakeSide(['i-0aaa', 'i-0bbb', 'vol-0ccc']));
    await run.create('instance');
    await run.create('instance');
    await run.create('volume');
    expect(run.text("The instance ID 'i-0bbb' does not exist")).to.equal("The instance ID 'instance#2' does not exist");
    expect(run.normalize({ arn: 'arn:aws:ec2:us-west-2:123456789012:volume/vol-0ccc' })).to.deep.equal({
      arn: 'arn:aws:ec2:us-west-2:123456789012:volume/volume#1',
    });
  });

  it('keeps only the shape of keys, secrets, tokens and times', () => {
    const run = new Run(fakeSide([]));
    const inAnHour = new Date(Date.now() + 3600_000);
    expect(
      run.normalize({
        Credentials: {
          AccessKeyId: 'ASIAQWERTYUIOPASDFGH',
          SecretAccessKey: 's3cr3t',
          SessionToken: 'token',
          Expiration: inAnHour,
        },
        AssumedRoleUser: { AssumedRoleId: 'AROA3X42LBCD1HCVYR0I8:keymaster' },
        PaginationToken: 'abc',
        NextToken: '',
        PackedPolicySize: 6,
      }),
    ).to.deep.equal({
      AssumedRoleUser: { AssumedRoleId: 'AROA…:keymaster' },
      Credentials: {
        AccessKeyId: 'ASIA…',
        Expiration: 'now+60m',
        SecretAccessKey: '<secret>',
        SessionToken: '<secret>',
      },
      NextToken: '',
      PackedPolicySize: '<percent>',
      PaginationToken: '<token>',
    });
  });

  it('sorts the lists AWS promises no order of, and keeps the others as they are', () => {
    const run = new Run(fakeSide([]));
    const tags = [
      { Key: 'team', Value: 'a' },
      { Key: 'env', Value: 'b' },
    ];
    expect(run.normalize({ Tags: tags, Steps: ['b', 'a'] })).to.deep.equal({
      Steps: ['b', 'a'],
      Tags: [tags[1], tags[0]],
    });
  });
});
