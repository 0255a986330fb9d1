import { expect } from 'chai';
import { call, startTestCluster, type TestCluster } from '../helpers/emulator.js';

const LEASES = '/apis/coordination.k8s.io/v1/namespaces/default/leases';
const LAYOUT = '"2006-01-02T15:04:05.000000Z07:00"';
let leases = 0;
const lease = (time: string) => ({
  apiVersion: 'coordination.k8s.io/v1',
  kind: 'Lease',
  metadata: { name: `lease-${++leases}` },
  spec: { holderIdentity: 'me', leaseDurationSeconds: 15, acquireTime: time, renewTime: time },
});

/**
 * metav1.MicroTime fields (a Lease's acquireTime and renewTime, an Event's eventTime) as
 * kube-apiserver 1.37 decodes them (answers taken from packages/testenv's real server with kubectl):
 * exactly six fractional digits, or 400. A JavaScript Date's toISOString() has three: a client that
 * sends one (as @kubernetes/client-node does for a plain Date) never gets a Lease.
 */
describe('MicroTime fields are decoded as kube-apiserver decodes them', function () {
  let cluster: TestCluster;
  before(async () => {
    cluster = await startTestCluster({ crds: undefined });
  });
  after(() => cluster.stop());

  it("refuses a Lease whose times are not RFC3339 with six fractional digits, with Go's parse error", async () => {
    const cases: [string, string][] = [
      [
        '2026-11-23T05:01:39.896Z',
        `parsing time "2026-11-23T05:01:39.896Z" as ${LAYOUT}: cannot parse ".896Z" as ".000000"`,
      ],
      ['2026-11-23T05:01:39Z', `parsing time "2026-11-23T05:01:39Z" as ${LAYOUT}: cannot parse "Z" as ".000000"`],
      [
        '2026-11-23T05:01:39.896000000Z',
        `parsing time "2026-11-23T05:01:39.896000000Z" as ${LAYOUT}: cannot parse "000Z" as "Z07:00"`,
      ],
      ['2026-11-23T05:01:39.896000Zjunk', 'parsing time "2026-11-23T05:01:39.896000Zjunk": extra text: "junk"'],
      [
        '2026-11-23 05:01:39.896000Z',
        `parsing time "2026-11-23 05:01:39.896000Z" as ${LAYOUT}: cannot parse " 05:01:39.896000Z" as "T"`,
      ],
      [
        '2026-11-23T05:01:39.896000z',
        `parsing time "2026-11-23T05:01:39.896000z" as ${LAYOUT}: cannot parse "z" as "Z07:00"`,
      ],
      ['yesterday', `parsing time "yesterday" as ${LAYOUT}: cannot parse "yesterday" as "2006"`],
    ];
    for (const [time, error] of cases) {
      const { status, body } = await call(cluster.emulator, 'POST', LEASES, lease(time));
      expect({ status, body }, time).to.deep.include({
        status: 400,
        body: {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: `Lease in version "v1" cannot be handled as a Lease: ${error}`,
          reason: 'BadRequest',
          code: 400,
        },
      });
    }
  });

  it('stores six digits as sent, and an offset in UTC', async () => {
    for (const [sent, stored] of [
      ['2026-11-23T05:01:39.896000Z', '2026-11-23T05:01:39.896000Z'],
      ['2026-11-23T05:01:39.896123+02:00', '2026-11-23T03:01:39.896123Z'],
    ]) {
      const { status, body } = await call(cluster.emulator, 'POST', LEASES, lease(sent!));
      expect(status, sent).to.equal(201);
      expect((body as { spec: object }).spec, sent).to.include({ acquireTime: stored, renewTime: stored });
    }
  });

  it("refuses an Event's eventTime with milliseconds, in both Event APIs", async () => {
    for (const [path, event] of [
      ['/api/v1/namespaces/default/events', { apiVersion: 'v1', involvedObject: { kind: 'ConfigMap', name: 'x' } }],
      [
        '/apis/events.k8s.io/v1/namespaces/default/events',
        { apiVersion: 'events.k8s.io/v1', regarding: { kind: 'ConfigMap', name: 'x' } },
      ],
    ] as const) {
      const { status, body } = await call(cluster.emulator, 'POST', path, {
        ...event,
        kind: 'Event',
        metadata: { generateName: 'e-' },
        reason: 'R',
        type: 'Normal',
        action: 'a',
        reportingInstance: 'i',
        eventTime: '2026-11-23T05:01:39.896Z',
      });
      expect(status, path).to.equal(400);
      expect((body as { message: string }).message, path).to.equal(
        `Event in version "v1" cannot be handled as a Event: parsing time "2026-11-23T05:01:39.896Z" as ${LAYOUT}: cannot parse ".896Z" as ".000000"`,
      );
    }
  });
});
