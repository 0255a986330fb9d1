import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { packedKnownBytes, packKnown } from '@keymaster/tagging';
import { KnownResources, knownBytesFor } from '../../src/awscluster/known-resources.js';

const run = promisify(execFile);
const MIB = 1024 * 1024;
const CLUSTER = 'team-a/prod';
const FOUND = {
  resources: { 'arn:aws:ec2:us-east-1:111111111111:instance/i-1': { team: 'a' } },
  regions: { 'arn:aws:ec2:us-east-1:111111111111:instance/i-1': 'us-east-1' },
};
const LAST = { discovery: 'cluster@1 account principal credentials', layers: 'policy@1' };
/** When the last discovery ran (epoch ms), and the sync period. */
const DISCOVERED = 1_000_000;
const PERIOD = 60_000;
const SET = { resources: FOUND, discoveredAt: DISCOVERED };

describe('KnownResources: which tag work plans from the known set', () => {
  const cases: {
    title: string;
    prepare: (known: KnownResources) => void;
    inputs: typeof LAST;
    /** When the work starts (default: just after the discovery). */
    at?: number;
    plans: boolean;
  }[] = [
    {
      title: 'a tag policy or identity edit (only the layers changed): plans from it',
      prepare: (known) => known.record(CLUSTER, LAST, SET),
      inputs: { ...LAST, layers: 'policy@2' },
      plans: true,
    },
    {
      title: 'a resync, or a signal that resources changed (the same inputs): discovers',
      prepare: (known) => known.record(CLUSTER, LAST, SET),
      inputs: LAST,
      plans: false,
    },
    {
      title: "the cluster's spec, account, principal or credential set changed: discovers",
      prepare: (known) => known.record(CLUSTER, LAST, SET),
      inputs: { discovery: 'cluster@2 account principal credentials', layers: 'policy@2' },
      plans: false,
    },
    {
      title: 'a new cluster (nothing recorded): discovers',
      prepare: () => {},
      inputs: { ...LAST, layers: 'policy@2' },
      plans: false,
    },
    {
      title:
        'after a work that was not synced (an error, a failure, a verify mismatch: taken, not recorded): discovers',
      prepare: (known) => {
        known.record(CLUSTER, LAST, SET);
        known.take(CLUSTER, { ...LAST, layers: 'policy@2' }, DISCOVERED);
      },
      inputs: { ...LAST, layers: 'policy@3' },
      plans: false,
    },
    {
      title: 'a cluster forgotten (deleted): discovers',
      prepare: (known) => {
        known.record(CLUSTER, LAST, SET);
        known.forget(CLUSTER);
      },
      inputs: { ...LAST, layers: 'policy@2' },
      plans: false,
    },
    {
      title: "another cluster's known set: discovers",
      prepare: (known) => known.record('team-b/prod', LAST, SET),
      inputs: { ...LAST, layers: 'policy@2' },
      plans: false,
    },
    {
      title: 'an edit within a sync period of the discovery, after other edits planned from it: plans from it',
      prepare: (known) => {
        known.record(CLUSTER, LAST, SET);
        const taken = known.take(CLUSTER, { ...LAST, layers: 'policy@2' }, DISCOVERED + PERIOD / 2)!;
        known.record(CLUSTER, { ...LAST, layers: 'policy@2' }, taken);
      },
      inputs: { ...LAST, layers: 'policy@3' },
      at: DISCOVERED + PERIOD - 1,
      plans: true,
    },
    {
      title:
        'an edit a sync period after the discovery, however many edits planned from it since (each resync met an edit): discovers',
      prepare: (known) => {
        known.record(CLUSTER, LAST, SET);
        const taken = known.take(CLUSTER, { ...LAST, layers: 'policy@2' }, DISCOVERED + PERIOD / 2)!;
        known.record(CLUSTER, { ...LAST, layers: 'policy@2' }, taken);
      },
      inputs: { ...LAST, layers: 'policy@3' },
      at: DISCOVERED + PERIOD,
      plans: false,
    },
  ];
  for (const { title, prepare, inputs, plans, at = DISCOVERED + 1 } of cases)
    it(title, () => {
      const known = new KnownResources({ maxAgeMs: PERIOD });
      prepare(known);
      const taken = known.take(CLUSTER, inputs, at);
      expect(taken?.resources).to.deep.equal(plans ? FOUND : undefined);
      if (plans) expect(taken?.discoveredAt, 'the time of the discovery, not of the edits').to.equal(DISCOVERED);
    });
});

describe('KnownResources: bounded in bytes, whatever a tenant’s accounts hold', () => {
  const found = (count: number) => {
    const arns = Array.from({ length: count }, (_, index) => `arn:aws:ec2:us-east-1:111111111111:instance/i-${index}`);
    return {
      resources: Object.fromEntries(arns.map((arn) => [arn, { team: 'a' }])),
      regions: Object.fromEntries(arns.map((arn) => [arn, 'us-east-1'])),
    };
  };
  const EDIT = { ...LAST, layers: 'policy@2' };
  const set = (count: number) => ({ resources: found(count), discoveredAt: DISCOVERED });
  const take = (known: KnownResources, cluster: string) => known.take(cluster, EDIT, DISCOVERED)?.resources;
  const bytesOf = (resources: ReturnType<typeof found>) => packedKnownBytes(packKnown(resources));

  it('drops the sets used longest ago to keep a new one within the bound', () => {
    const one = bytesOf(found(10));
    const known = new KnownResources({ maxBytes: 2 * one });
    for (const cluster of ['a/one', 'a/two', 'a/three']) known.record(cluster, LAST, set(10));
    expect(known.bytes).to.equal(2 * one);
    expect(take(known, 'a/one'), 'the oldest, dropped').to.equal(undefined);
    expect(take(known, 'a/two')).to.deep.equal(found(10));
    expect(take(known, 'a/three')).to.deep.equal(found(10));
    expect(known.bytes, 'taken sets are no longer held').to.equal(0);
  });

  it('keeps no set larger than the bound, and leaves the others', () => {
    const known = new KnownResources({ maxBytes: bytesOf(found(10)) });
    known.record('a/small', LAST, set(10));
    known.record('b/huge', LAST, set(1000));
    expect(take(known, 'b/huge')).to.equal(undefined);
    expect(take(known, 'a/small')).to.deep.equal(found(10));
  });

  it("takes a sixth of the heap's limit, 128 MiB at most: 72 MiB with the Deployment's heap", () => {
    // V8's limit with --max-old-space-size=384 is 432 MiB (the young generation besides).
    expect([432, 768, 4144].map((limit) => knownBytesFor(limit * MIB) / MIB)).to.deep.equal([72, 128, 128]);
  });

  it("follows the controller's own heap limit: below 128 MiB under the Deployment's NODE_OPTIONS", async function () {
    // A Node.js process of its own, through tsx: seconds on a busy machine.
    this.timeout(120_000);
    const module = new URL('../../src/awscluster/known-resources.ts', import.meta.url).href;
    const { stdout } = await run(process.execPath, [
      '--max-old-space-size=384',
      '--conditions=@keymaster/source',
      '--import=tsx',
      '--input-type=module',
      '--eval',
      `const { getHeapStatistics } = await import('node:v8');
       const { DEFAULT_KNOWN_BYTES } = await import(${JSON.stringify(module)});
       console.log(JSON.stringify([getHeapStatistics().heap_size_limit, DEFAULT_KNOWN_BYTES]));`,
    ]);
    const [limit, bytes] = JSON.parse(stdout) as [number, number];
    expect(bytes)
      .to.equal(knownBytesFor(limit))
      .and.to.be.below(128 * MIB);
  });

  it('counts a cluster recorded again once', () => {
    const known = new KnownResources();
    known.record(CLUSTER, LAST, set(10));
    known.record(CLUSTER, LAST, set(10));
    expect(known.bytes).to.equal(bytesOf(found(10)));
    known.forget(CLUSTER);
    expect(known.bytes).to.equal(0);
  });
});
