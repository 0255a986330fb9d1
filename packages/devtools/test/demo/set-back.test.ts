import type { CoreV1Event } from '@kubernetes/client-node';
import type { AWSCluster } from '@keymaster/api';
import { expect } from 'chai';
import { clusterRow } from '../../src/demo/clusters.js';
import { driftSetBack } from '../../src/demo/set-back.js';
import { renderLine } from '../../src/demo/table.js';
import { awsCluster, readyStatus } from './fixtures.js';

const SYNCED = '2026-11-27T10:00:00Z';
const cluster: AWSCluster = awsCluster('tenant-a', 'payments-prod', {
  ...readyStatus,
  tagging: { ...readyStatus.tagging, resourcesDrifted: 0, lastSyncTime: SYNCED },
});
cluster.metadata.uid = 'uid-payments';

const event = (overrides: Partial<CoreV1Event> = {}): CoreV1Event => ({
  metadata: { name: 'payments-prod.1', namespace: 'tenant-a' },
  involvedObject: { kind: 'AWSCluster', name: 'payments-prod', namespace: 'tenant-a', uid: 'uid-payments' },
  reason: 'TagDriftCorrected',
  message: 'Set back 3 tags edited outside Keymaster on 2 resources: team on arn:aws:ec2:… ("x" -> "y")',
  lastTimestamp: new Date('2026-11-27T10:00:00.400Z'),
  ...overrides,
});

describe('demo: drift set back by the last sync', () => {
  const table: [string, CoreV1Event[], number | undefined][] = [
    ["counts the resources of the last sync's TagDriftCorrected event", [event()], 2],
    ['one resource', [event({ message: 'Set back 1 tag edited outside Keymaster on 1 resource: …' })], 1],
    ['in the same second as the sync (event times have seconds only)', [event({ lastTimestamp: new Date(SYNCED) })], 2],
    ['not an event of a sync before the last', [event({ lastTimestamp: new Date('2026-11-27T09:59:59Z') })], undefined],
    ["not another object's event", [event({ involvedObject: { kind: 'AWSCluster', uid: 'uid-other' } })], undefined],
    ['not another reason', [event({ reason: 'TagsApplied', message: 'Updated the tags of 2 resources' })], undefined],
  ];
  for (const [title, events, setBack] of table)
    it(title, () => {
      expect(driftSetBack([cluster], events).get('tenant-a/payments-prod')).to.equal(setBack);
    });

  it('shows in the DRIFTED column next to what status still counts as drifted', () => {
    const setBack = driftSetBack([cluster], [event()]).get('tenant-a/payments-prod');
    expect(renderLine(clusterRow(cluster, setBack))).to.include(', drifted 2 (2 set back), ');
    expect(renderLine(clusterRow(cluster))).to.include(', drifted 0, ');
  });
});
