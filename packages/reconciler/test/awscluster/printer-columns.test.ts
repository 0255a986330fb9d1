import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { CustomObjectsApi } from '@kubernetes/client-node';
import { GROUP, VERSION, type AWSCluster } from '@keymaster/api';
import { expect } from 'chai';
import type { RunningController } from '../../src/cli/run.js';
import type { Emulators } from '@keymaster/testenv';
import { kubectl133 } from '../cli/kubectl.js';
import { startExamples, type ExamplesPlatform } from '../integration/examples.js';
import { eventually } from '../integration/harness.js';

/** kubectl's table as rows of cells, cut where the header's columns start (an empty cell is ''). */
function rowsOf(table: string): string[][] {
  const [header = '', ...lines] = table.trimEnd().split('\n');
  const starts = [...header.matchAll(/\S+/g)].map(({ index }) => index);
  return [header, ...lines].map((line) => starts.map((start, column) => line.slice(start, starts[column + 1]).trim()));
}

describe('kubectl get awsclusters: the printer columns, with the values the controller wrote (kubectl 1.33, kube-emulator)', function () {
  this.timeout(120_000);
  let platform: ExamplesPlatform;
  let emulators: Emulators;
  let controller: RunningController;
  let clusters: AWSCluster[];
  const kubectl = async (...args: string[]) =>
    (await promisify(execFile)(kubectl133(), ['--kubeconfig', platform.kubeconfig, ...args])).stdout;

  before(async () => {
    platform = await startExamples('columns');
    emulators = platform.emulators;
    controller = await platform.startController();
    // Converged: every cluster has a Ready condition on its current spec (the refused one False).
    clusters = await eventually(async () => {
      const { items } = (await emulators.kubeConfig.makeApiClient(CustomObjectsApi).listClusterCustomObject({
        group: GROUP,
        version: VERSION,
        plural: 'awsclusters',
      })) as { items: AWSCluster[] };
      const ready = items.map((cluster) =>
        cluster.status?.observedGeneration === cluster.metadata.generation
          ? cluster.status?.conditions?.find(({ type }) => type === 'Ready')?.status
          : undefined,
      );
      expect(ready).to.deep.equal(['True', 'True', 'True', 'False']);
      return items;
    }, 60_000);
  });
  after(async () => {
    await controller.stop();
    await platform.stop();
  });

  it('shows Ready, Reason, Account, In-Sync (in sync / discovered), Drifted and Age', async () => {
    const rows = rowsOf(await kubectl('get', 'awsclusters', '-A'));
    expect(rows[0]).to.deep.equal(['NAMESPACE', 'NAME', 'READY', 'REASON', 'ACCOUNT', 'IN-SYNC', 'DRIFTED', 'AGE']);
    const expected = clusters.map((cluster) => {
      const ready = cluster.status!.conditions!.find(({ type }) => type === 'Ready')!;
      const tagging = cluster.status!.tagging;
      return [
        cluster.metadata.namespace,
        cluster.metadata.name,
        ready.status,
        ready.reason,
        cluster.status!.accountID ?? '',
        tagging ? `${tagging.resourcesInSync}/${tagging.resourcesDiscovered}` : '',
        tagging ? String(tagging.resourcesDrifted) : '',
      ];
    });
    expect(rows.slice(1).map((row) => row.slice(0, -1))).to.deep.equal(expected);
    // The figures are the controller's: the Ready clusters have resources, all in sync; the refused one none.
    expect(expected.map((row) => row.slice(2).join(' '))).to.deep.equal([
      `True Ready 222222222222 ${expected[0]![5]} 0`,
      `True Ready 333333333333 ${expected[1]![5]} 0`,
      `True Ready 333333333333 ${expected[2]![5]} 0`,
      'False PrincipalUsageUnauthorized   ',
    ]);
    for (const row of expected.slice(0, 3)) expect(row[5]).to.match(/^([1-9]\d*)\/\1$/);
  });

  it('-o wide adds Region, the identity and the identity chain', async () => {
    const rows = rowsOf(await kubectl('get', 'awsclusters', '-n', 'tenant-b', '-o', 'wide'));
    expect(rows[0]).to.deep.equal([
      'NAME',
      'READY',
      'REASON',
      'ACCOUNT',
      'IN-SYNC',
      'DRIFTED',
      'AGE',
      'REGION',
      'IDENTITY',
      'CHAIN',
    ]);
    const tenantB = clusters.filter(({ metadata }) => metadata.namespace === 'tenant-b');
    expect(rows.slice(1).map((row) => row.slice(-3))).to.deep.equal(
      tenantB.map((cluster) => [
        cluster.spec.region,
        cluster.spec.identityRef!.name,
        cluster.status!.identityChainSummary,
      ]),
    );
    expect(rows[1]!.slice(-3)).to.deep.equal(['eu-west-1', 'tenant-b', 'tenant-b,keymaster-hub,default']);
  });

  it('shows the identities with their account and how many clusters and namespaces use them', async () => {
    const rows = rowsOf(await kubectl('get', 'awsclusterroleidentities'));
    expect(rows[0]).to.deep.equal(['NAME', 'ROLE', 'SOURCE', 'ACCOUNT', 'CLUSTERS', 'NAMESPACES', 'AGE']);
    // tenant-b's role: its two clusters, and tenant-c's refused one (counted, not named).
    expect(rows.find((row) => row[0] === 'tenant-b')?.slice(3, 6)).to.deep.equal(['333333333333', '3', '2']);
  });
});
