import { expect } from 'chai';
import type { CallRecord, CallSummary } from '@keymaster/aws-emulator';
import { apiServerWrites, callsAfter } from '../../scripts/bench/emulator-api.js';

/** Lines of a kube-apiserver 1.33 /metrics, trimmed to what the benchmark reads and what it must skip. */
const METRICS = [
  '# HELP apiserver_request_total [STABLE] Counter of apiserver requests broken out for each verb, ...',
  '# TYPE apiserver_request_total counter',
  'apiserver_request_total{code="201",component="apiserver",dry_run="",group="",resource="events",scope="namespace",subresource="",verb="POST",version="v1"} 7',
  'apiserver_request_total{code="200",component="apiserver",dry_run="",group="infrastructure.keymaster.dev",resource="awsclusters",scope="resource",subresource="status",verb="PUT",version="v1beta1"} 3',
  'apiserver_request_total{code="409",component="apiserver",dry_run="",group="infrastructure.keymaster.dev",resource="awsclusters",scope="resource",subresource="status",verb="PUT",version="v1beta1"} 1',
  'apiserver_request_total{code="200",component="apiserver",dry_run="",group="infrastructure.keymaster.dev",resource="awsclusters",scope="resource",subresource="",verb="PATCH",version="v1beta1"} 2',
  'apiserver_request_total{code="200",component="apiserver",dry_run="",group="coordination.k8s.io",resource="leases",scope="resource",subresource="",verb="PUT",version="v1"} 40',
  'apiserver_request_total{code="200",component="apiserver",dry_run="",group="infrastructure.keymaster.dev",resource="awsclusters",scope="cluster",subresource="",verb="LIST",version="v1beta1"} 5',
  'apiserver_request_total{code="0",component="apiserver",dry_run="",group="infrastructure.keymaster.dev",resource="awsclusters",scope="cluster",subresource="",verb="WATCH",version="v1beta1"} 2',
  'apiserver_request_total{code="201",component="apiserver",dry_run="All",group="",resource="events",scope="namespace",subresource="",verb="POST",version="v1"} 4',
  'apiserver_request_duration_seconds_count{component="apiserver",dry_run="",group="",resource="events",scope="namespace",subresource="",verb="POST",version="v1"} 7',
].join('\n');

describe('bench: the writes a real kube-apiserver answered', () => {
  it('counts writes by verb and resource as the kube-emulator names them: status and conflicts included, reads and dry runs not', () => {
    expect(apiServerWrites(METRICS)).to.deep.equal({
      'create events': 7,
      'update awsclusters.infrastructure.keymaster.dev': 4,
      'patch awsclusters.infrastructure.keymaster.dev': 2,
      'update leases.coordination.k8s.io': 40,
    });
  });
});

describe('bench: the calls made since a read of the call log', () => {
  const call = (requestId: string): CallRecord => ({
    time: '2026-11-28T00:00:00Z',
    service: 'sts',
    action: 'sts:AssumeRole',
    outcome: 'success',
    status: 200,
    requestId,
  });
  /** A log that counted `total` calls and keeps the latest of them, named by their number. */
  const summary = (total: number, kept: number): CallSummary => ({
    total,
    byAction: {},
    byCaller: {},
    errors: {},
    recent: Array.from({ length: kept }, (_, index) => call(String(total - kept + index + 1))),
  });
  const ids = (calls: readonly CallRecord[] | undefined) => calls?.map(({ requestId }) => requestId);

  for (const { title, total, kept, seen, expected } of [
    { title: 'the new calls alone, oldest first', total: 10, kept: 5, seen: 7, expected: ['8', '9', '10'] },
    { title: 'every kept call when all are new', total: 5, kept: 5, seen: 0, expected: ['1', '2', '3', '4', '5'] },
    { title: 'none when nothing is new', total: 10, kept: 5, seen: 10, expected: [] },
    { title: 'undefined when some new calls fell out of the log', total: 10, kept: 5, seen: 4, expected: undefined },
    { title: 'undefined when the log was reset since', total: 3, kept: 3, seen: 8, expected: undefined },
  ])
    it(title, () => {
      expect(ids(callsAfter(summary(total, kept), seen))).to.deep.equal(expected);
    });
});
