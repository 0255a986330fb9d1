import { expect } from 'chai';
import { RateLimiter } from '@keymaster/tagging';
import { parseRunFlags, runHelp } from '../../src/cli/flags.js';

function refusal(args: string[]): Error & { code: string; hint?: string } {
  try {
    parseRunFlags(args);
  } catch (error) {
    return error as Error & { code: string; hint?: string };
  }
  return expect.fail('expected the flags to be refused');
}

describe('keymaster run flags', () => {
  it("has controller-runtime's names and defaults", () => {
    const flags = parseRunFlags([]);
    expect(flags).to.deep.include({
      namespace: 'keymaster-system',
      syncPeriodMs: 600_000,
      maxConcurrentReconciles: 10,
      leaderElect: false,
      leaderElectionNamespace: 'keymaster-system',
      featureGates: { AutoControllerIdentityCreator: false },
      logLevel: 'info',
      logFormat: 'json',
    });
    expect(flags.metricsBindAddress).to.deep.equal({ host: '0.0.0.0', port: 8080 });
    expect(flags.healthProbeBindAddress).to.deep.equal({ host: '0.0.0.0', port: 8081 });
  });

  it('reads every flag', () => {
    const flags = parseRunFlags([
      '--kubeconfig=/tmp/kc',
      '--namespace=platform',
      '--watch-namespace=tenant-a',
      '--watch-filter=blue',
      '--sync-period=30s',
      '--max-concurrent-reconciles=4',
      '--metrics-bind-address=127.0.0.1:0',
      '--health-probe-bind-address=0',
      '--leader-elect',
      '--feature-gates=AutoControllerIdentityCreator=true',
      '--log-level=debug',
      '--log-format=text',
    ]);
    expect(flags).to.deep.include({
      kubeconfig: '/tmp/kc',
      namespace: 'platform',
      watchNamespace: 'tenant-a',
      watchFilter: 'blue',
      syncPeriodMs: 30_000,
      maxConcurrentReconciles: 4,
      healthProbeBindAddress: undefined,
      leaderElect: true,
      leaderElectionNamespace: 'platform',
      featureGates: { AutoControllerIdentityCreator: true },
      logLevel: 'debug',
      logFormat: 'text',
    });
    expect(flags.metricsBindAddress).to.deep.equal({ host: '127.0.0.1', port: 0 });
  });

  it('refuses bad values naming the flag, the problem and the fix', () => {
    const duration = refusal(['--sync-period=10']);
    expect(duration.code).to.equal('ERR_KEYMASTER_INVALID_FLAG');
    expect(duration.message).to.equal('--sync-period="10": is not a Go duration of at least 1s');
    expect(duration.hint).to.match(/30s, 10m or 1h/);
    expect(refusal(['--max-concurrent-reconciles=0']).message).to.match(
      /^--max-concurrent-reconciles="0": is not a whole number/,
    );
    expect(refusal(['--feature-gates=Foo=true']).message).to.match(/unknown gate "Foo"/);
    expect(refusal(['--log-format=xml']).message).to.match(/must be one of json, text/);
    expect(refusal(['--metrics-bind-address=localhost']).message).to.match(/is not an address/);
    expect(refusal(['--no-such-flag']).code).to.equal('ERR_KEYMASTER_INVALID_FLAG');
  });

  it("reads --aws-tagging-read-rate and --aws-tagging-write-rate: AWS's quotas by default, a rate with an optional burst, or unlimited", async () => {
    expect(parseRunFlags([]).awsTaggingBudgets).to.deep.include({
      taggingReads: { ratePerSecond: 15, burst: 12 },
      taggingWrites: { ratePerSecond: 5, burst: 4 },
    });
    expect(parseRunFlags(['--aws-tagging-read-rate=50,80']).awsTaggingBudgets).to.deep.include({
      taggingReads: { ratePerSecond: 50, burst: 80 },
      taggingWrites: { ratePerSecond: 5, burst: 4 },
    });
    // Without a burst, a fifth under a second's: within the quota AWS raised to that rate.
    expect(parseRunFlags(['--aws-tagging-write-rate=10']).awsTaggingBudgets.taggingWrites).to.deep.equal({
      ratePerSecond: 10,
      burst: 8,
    });
    expect(parseRunFlags(['--aws-tagging-write-rate=2.5']).awsTaggingBudgets.taggingWrites).to.deep.equal({
      ratePerSecond: 2.5,
      burst: 2,
    });
    const unlimited = parseRunFlags(['--aws-tagging-write-rate=unlimited']).awsTaggingBudgets.taggingWrites;
    expect(unlimited.ratePerSecond).to.be.above(1e15);
    // A limiter made with it never waits: a clock that cannot sleep would throw.
    const clock = { now: () => 0, sleep: () => Promise.reject(new Error('waited')) };
    const limiter = new RateLimiter({ ...unlimited, clock });
    const grants = await Promise.all(Array.from({ length: 10_000 }, () => limiter.acquire()));
    expect(grants.at(-1)?.sequence).to.equal(10_000);
    for (const [value, problem] of [
      ['0', /the rate "0" is not a number above 0/],
      ['fast', /the rate "fast" is not a number above 0/],
      [',10', /the rate "" is not a number above 0/],
      ['5,0', /the burst "0" is not a whole number of at least 1/],
      ['5,2.5', /the burst "2.5" is not a whole number/],
      ['5,', /the burst "" is not a whole number/],
      ['5,10,20', /has more than two numbers/],
    ] as const) {
      for (const flag of ['aws-tagging-read-rate', 'aws-tagging-write-rate', 'aws-tagging-rate']) {
        const error = refusal([`--${flag}=${value}`]);
        expect(error.code).to.equal('ERR_KEYMASTER_INVALID_FLAG');
        expect(error.message.startsWith(`--${flag}=${JSON.stringify(value)}: `), error.message).to.equal(true);
        expect(error.message).to.match(problem);
        expect(error.hint).to.include('unlimited');
      }
    }
  });

  it("reads --aws-ec2-write-rate and --aws-ec2-read-rate: EC2's buckets by default, a rate with an optional burst, or unlimited", () => {
    expect(parseRunFlags([]).awsTaggingBudgets).to.deep.include({
      ec2Writes: { ratePerSecond: 10, burst: 80 },
      ec2Reads: { ratePerSecond: 20, burst: 80 },
    });
    const set = parseRunFlags(['--aws-ec2-write-rate=20', '--aws-ec2-read-rate=40,160']).awsTaggingBudgets;
    expect(set).to.deep.include({
      ec2Writes: { ratePerSecond: 20, burst: 16 },
      ec2Reads: { ratePerSecond: 40, burst: 160 },
      taggingWrites: { ratePerSecond: 5, burst: 4 },
    });
    expect(parseRunFlags(['--aws-ec2-write-rate=unlimited']).awsTaggingBudgets.ec2Writes.ratePerSecond).to.be.above(
      1e15,
    );
    for (const flag of ['aws-ec2-write-rate', 'aws-ec2-read-rate']) {
      const error = refusal([`--${flag}=0`]);
      expect(error.code).to.equal('ERR_KEYMASTER_INVALID_FLAG');
      expect(error.message).to.match(new RegExp(`^--${flag}="0": the rate "0" is not a number above 0`));
      expect(error.hint).to.include('unlimited');
    }
  });

  it('still reads the deprecated --aws-tagging-rate, as the writes’ budget, unless --aws-tagging-write-rate is given', () => {
    expect(parseRunFlags(['--aws-tagging-rate=50,80']).awsTaggingBudgets).to.deep.include({
      taggingReads: { ratePerSecond: 15, burst: 12 },
      taggingWrites: { ratePerSecond: 50, burst: 80 },
    });
    const both = parseRunFlags(['--aws-tagging-rate=50,80', '--aws-tagging-write-rate=6,4']).awsTaggingBudgets;
    expect(both.taggingWrites).to.deep.equal({ ratePerSecond: 6, burst: 4 });
  });

  it('reads what one namespace may cost: --max-credential-sets-per-namespace, --sts-rate-per-namespace, --min-renewal-interval', () => {
    expect(parseRunFlags([])).to.deep.include({
      maxCredentialSetsPerNamespace: 50,
      stsRatePerNamespace: { ratePerSecond: 1, burst: 20 },
      minRenewalIntervalMs: 300_000,
    });
    expect(
      parseRunFlags([
        '--max-credential-sets-per-namespace=200',
        '--sts-rate-per-namespace=2,40',
        '--min-renewal-interval=0s',
      ]),
    ).to.deep.include({
      maxCredentialSetsPerNamespace: 200,
      stsRatePerNamespace: { ratePerSecond: 2, burst: 40 },
      minRenewalIntervalMs: 0,
    });
    expect(parseRunFlags(['--sts-rate-per-namespace=unlimited']).stsRatePerNamespace.ratePerSecond).to.be.above(1e15);
    for (const [args, message, fix] of [
      [
        ['--max-credential-sets-per-namespace=0'],
        /^--max-credential-sets-per-namespace="0": is not a whole number of at least 1$/,
        /50 \(the default\)/,
      ],
      [['--max-credential-sets-per-namespace=many'], /is not a whole number/, /share one set/],
      [
        ['--sts-rate-per-namespace=0,5'],
        /^--sts-rate-per-namespace="0,5": the rate "0" is not a number above 0$/,
        /1,20 \(the default\)/,
      ],
      [['--min-renewal-interval=5'], /^--min-renewal-interval="5": is not a Go duration$/, /5m \(the default\)/],
    ] as const) {
      const error = refusal([...args]);
      expect(error.code).to.equal('ERR_KEYMASTER_INVALID_FLAG');
      expect(error.message).to.match(message);
      expect(error.hint).to.match(fix);
    }
  });

  it('reads --adopt-cluster-api (off), --capa-namespace (capa-system) and --capa-empty-selector (none), refusing another mode', () => {
    expect(parseRunFlags([])).to.deep.include({
      adoptClusterAPI: false,
      capa: { namespace: 'capa-system', emptySelector: 'none' },
    });
    expect(
      parseRunFlags(['--adopt-cluster-api', '--capa-namespace=capi', '--capa-empty-selector=all-namespaces']),
    ).to.deep.include({ adoptClusterAPI: true, capa: { namespace: 'capi', emptySelector: 'all-namespaces' } });
    const refused = refusal(['--capa-empty-selector=all']);
    expect(refused.message).to.equal('--capa-empty-selector="all": must be one of none, all-namespaces');
  });

  it('documents every flag in --help', () => {
    for (const flag of [
      '--kubeconfig',
      '--namespace',
      '--watch-namespace',
      '--watch-filter',
      '--sync-period',
      '--max-concurrent-reconciles',
      '--metrics-bind-address',
      '--health-probe-bind-address',
      '--feature-gates',
      '--log-level',
      '--log-format',
      '--leader-elect',
      '--leader-elect-lease-duration',
      '--leader-elect-renew-deadline',
      '--leader-elect-retry-period',
      '--aws-tagging-read-rate',
      '--aws-tagging-write-rate',
      '--aws-ec2-write-rate',
      '--aws-ec2-read-rate',
      '--max-credential-sets-per-namespace',
      '--sts-rate-per-namespace',
      '--min-renewal-interval',
      '--shards',
    ]) {
      expect(runHelp()).to.include(flag);
    }
  });

  it('takes --leader-elect=false and =true, as Go flags do, so that an overlay can turn it off', () => {
    expect(parseRunFlags(['--leader-elect=false']).leaderElect).to.equal(false);
    expect(parseRunFlags(['--leader-elect', '--leader-elect=false']).leaderElect).to.equal(false);
    expect(parseRunFlags(['--leader-elect=true']).leaderElect).to.equal(true);
    const bad = refusal(['--leader-elect=maybe']);
    expect(bad.message).to.equal('--leader-elect="maybe": is neither true nor false');
    expect(bad.hint).to.include('--leader-elect=false');
  });

  it("reads the lease timings with controller-runtime's names and defaults, and refuses a renew deadline not below the lease", () => {
    expect(parseRunFlags([])).to.deep.include({
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
    });
    expect(
      parseRunFlags([
        '--leader-elect-lease-duration=1m',
        '--leader-elect-renew-deadline=40s',
        '--leader-elect-retry-period=5s',
      ]),
    ).to.deep.include({ leaseDurationMs: 60_000, renewDeadlineMs: 40_000, retryPeriodMs: 5_000 });
    expect(refusal(['--leader-elect-renew-deadline=15s']).message).to.equal(
      '--leader-elect-renew-deadline="15s": must be less than --leader-elect-lease-duration (15s)',
    );
    expect(refusal(['--leader-elect-retry-period=10s']).message).to.match(
      /must be less than --leader-elect-renew-deadline/,
    );
    expect(refusal(['--leader-elect-lease-duration=soon']).message).to.match(/is not a positive Go duration/);
  });

  it('reads --shards (0, not sharded, by default) and refuses it with --leader-elect or a Lease id that cannot name Leases', () => {
    expect(parseRunFlags([]).shards).to.equal(0);
    expect(parseRunFlags(['--shards=6', '--leader-election-id=keymaster-eu']).shards).to.equal(6);
    for (const value of ['-1', '1.5', 'three', '257', '']) {
      const bad = refusal([`--shards=${value}`]);
      expect(bad.message, value).to.equal(`--shards=${JSON.stringify(value)}: is not a whole number from 0 to 256`);
      expect(bad.code).to.equal('ERR_KEYMASTER_INVALID_FLAG');
    }
    const both = refusal(['--shards=3', '--leader-elect']);
    expect(both.message).to.equal('--shards="3": cannot be combined with --leader-elect');
    expect(both.hint).to.match(/^Drop --leader-elect/);
    expect(parseRunFlags(['--shards=0', '--leader-elect']).leaderElect).to.equal(true);
    expect(refusal(['--shards=3', '--leader-election-id=Keymaster_1']).message).to.match(
      /^--leader-election-id="Keymaster_1": with --shards, names the shard Leases/,
    );
  });

  it('names the gate whose value is wrong', () => {
    const bad = refusal(['--feature-gates=AutoControllerIdentityCreator=yes']);
    expect(bad.message).to.include('gate "AutoControllerIdentityCreator" has the value "yes"');
    expect(bad.hint).to.equal('Write AutoControllerIdentityCreator=true or AutoControllerIdentityCreator=false.');
  });
});
