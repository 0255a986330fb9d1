import { expect } from 'chai';
import { standingLayers } from '../src/index.js';
import { policy, roleIdentity } from './fixtures.js';

const NOW = new Date('2026-01-01T12:00:00Z');
const HOUR_AGO = '2026-01-01T11:00:00Z';
const MINUTE_AGO = '2026-01-01T11:59:00Z';

/** `object` created at `created`, optionally being deleted. */
const aged = <T extends { metadata: object }>(object: T, created: string, deleting = false): T => ({
  ...object,
  metadata: {
    ...object.metadata,
    creationTimestamp: created,
    ...(deleting ? { deletionTimestamp: NOW.toISOString() } : {}),
  },
});

describe('standingLayers', () => {
  const tagged = roleIdentity('tenant-b', [{ key: 'cost', value: '1' }]);
  const cleared = { ...tagged, spec: { roleARN: tagged.spec.roleARN } };

  it('counts a policy and identities with resourceTags, explicit empty lists included, once past the grace period', () => {
    const layers = standingLayers(
      { policy: aged(policy([]), HOUR_AGO), identities: [aged(cleared, HOUR_AGO), aged(tagged, HOUR_AGO)] },
      { now: NOW },
    );
    expect(layers).to.deep.equal(['Global', 'Account', 'Cluster']);
  });

  it('leaves out a deleted, deleting, re-created or cleared layer; the cluster always stands', () => {
    const cases = [
      { policy: undefined, identities: [] },
      { policy: aged(policy([{ key: 'a', value: 'b' }]), HOUR_AGO, true), identities: [aged(tagged, HOUR_AGO, true)] },
      { policy: aged(policy([{ key: 'a', value: 'b' }]), MINUTE_AGO), identities: [aged(tagged, MINUTE_AGO)] },
      { policy: aged({ ...policy([]), spec: {} }, HOUR_AGO), identities: [aged(cleared, HOUR_AGO)] },
    ];
    for (const objects of cases) expect(standingLayers(objects, { now: NOW })).to.deep.equal(['Cluster']);
  });

  it('takes another grace period', () => {
    const objects = { policy: aged(policy([]), MINUTE_AGO), identities: [] };
    expect(standingLayers(objects, { now: NOW, gracePeriodMs: 30_000 })).to.deep.equal(['Global', 'Cluster']);
  });
});
