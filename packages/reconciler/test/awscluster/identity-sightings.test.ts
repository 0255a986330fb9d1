import { expect } from 'chai';
import type { IdentitySession, LinkName } from '@keymaster/identity';
import { IdentitySightings } from '../../src/awscluster/identity-sightings.js';

const WEB = { kind: 'AWSClusterWebIdentity', name: 'shared' };
const ARN = 'arn:aws:sts::222222222222:assumed-role/shared/keymaster-shared';
const session = (key: string, renewedAt: string, principalArn = ARN) =>
  ({
    key,
    accountId: '222222222222',
    principalArn,
    chain: [WEB],
    renewedAt: () => new Date(renewedAt),
  }) as unknown as IdentitySession;

describe('IdentitySightings', () => {
  let changed: LinkName[];
  let sightings: IdentitySightings;
  beforeEach(() => {
    changed = [];
    sightings = new IdentitySightings((identity) => changed.push({ kind: identity.kind, name: identity.name }));
  });

  it('tells of a new session once: a cluster reconciled again with the same session changes nothing', () => {
    sightings.saw(session('a', '2026-11-23T08:00:00Z'), 'tenant-a');
    sightings.saw(session('a', '2026-11-23T08:00:00Z'), 'tenant-a');
    sightings.saw(session('a', '2026-11-23T08:00:00Z'), 'tenant-a');
    expect(changed).to.deep.equal([WEB]);
    expect(sightings.sighting('AWSClusterWebIdentity/shared')).to.deep.equal({
      accountId: '222222222222',
      principalArn: ARN,
      renewedAt: new Date('2026-11-23T08:00:00Z'),
    });
  });

  it('tells of a renewal', () => {
    sightings.saw(session('a', '2026-11-23T08:00:00Z'), 'tenant-a');
    sightings.saw(session('a', '2026-11-23T08:55:00Z'), 'tenant-a');
    expect(changed).to.have.length(2);
    expect(sightings.sighting('AWSClusterWebIdentity/shared')?.renewedAt).to.deep.equal(
      new Date('2026-11-23T08:55:00Z'),
    );
  });

  it("keeps the latest renewal of an identity's sessions seen in turn (a web identity's namespaces)", () => {
    sightings.saw(session('a', '2026-11-23T08:10:00Z'), 'tenant-a');
    sightings.saw(session('b', '2026-11-23T08:00:00Z'), 'tenant-a');
    sightings.saw(session('a', '2026-11-23T08:10:00Z'), 'tenant-a');
    sightings.saw(session('b', '2026-11-23T08:00:00Z'), 'tenant-a');
    expect(changed, 'only the first sighting').to.have.length(1);
    expect(sightings.sighting('AWSClusterWebIdentity/shared')?.renewedAt).to.deep.equal(
      new Date('2026-11-23T08:10:00Z'),
    );
  });

  it('takes another principal as it comes (the identity now names another role)', () => {
    const other = 'arn:aws:sts::222222222222:assumed-role/other/keymaster-shared';
    sightings.saw(session('a', '2026-11-23T08:10:00Z'), 'tenant-a');
    sightings.saw(session('c', '2026-11-23T08:05:00Z', other), 'tenant-a');
    expect(changed).to.have.length(2);
    expect(sightings.sighting('AWSClusterWebIdentity/shared')).to.include({ principalArn: other });
    expect(sightings.sighting('AWSClusterWebIdentity/shared')?.renewedAt).to.deep.equal(
      new Date('2026-11-23T08:05:00Z'),
    );
  });
});
