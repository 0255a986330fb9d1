import { resolve } from 'node:path';
import { expect } from 'chai';
import { portFlag } from '@keymaster/reconciler';
import { parseDemoFlags } from '../../src/cli/demo.js';
import { CLUSTER_API_DEMO_WORLD, CLUSTER_API_EXAMPLES_DIR, DEMO_WORLD, EXAMPLES_DIR } from '@keymaster/testenv';

function refusal(parse: () => unknown): Error & { code: string; hint?: string } {
  try {
    parse();
  } catch (error) {
    return error as Error & { code: string; hint?: string };
  }
  return expect.fail('expected a refusal');
}

describe('keymaster demo and emulate flags', () => {
  it('demo: the embedded world and deploy/examples by default, runs until interrupted, 2m for --once', () => {
    expect(parseDemoFlags([])).to.deep.equal({
      once: false,
      timeoutMs: 120_000,
      syncPeriod: '15s',
      world: DEMO_WORLD,
      examples: resolve(EXAMPLES_DIR),
      kubeconfig: undefined,
      clusterApi: false,
      help: false,
    });
  });

  it("demo --cluster-api: the Cluster API fleet's world and deploy/examples/cluster-api unless given", () => {
    expect(parseDemoFlags(['--cluster-api'])).to.deep.include({
      clusterApi: true,
      world: CLUSTER_API_DEMO_WORLD,
      examples: resolve(CLUSTER_API_EXAMPLES_DIR),
    });
    expect(parseDemoFlags(['--cluster-api', '--world=w.yaml'])).to.deep.include({ world: resolve('w.yaml') });
  });

  it('demo: reads every flag, paths relative to the working directory', () => {
    expect(
      parseDemoFlags([
        '--once',
        '--timeout=90s',
        '--sync-period=1m',
        '--world=w.yaml',
        '--examples',
        'ex',
        '--kubeconfig',
        'kc',
      ]),
    ).to.deep.equal({
      once: true,
      timeoutMs: 90_000,
      syncPeriod: '1m',
      world: resolve('w.yaml'),
      examples: resolve('ex'),
      kubeconfig: resolve('kc'),
      clusterApi: false,
      help: false,
    });
  });

  it('demo: refuses a sync period as keymaster run does, naming the flag', () => {
    const refused = refusal(() => parseDemoFlags(['--sync-period', 'often']));
    expect(refused).to.include({ code: 'ERR_KEYMASTER_INVALID_FLAG' });
    expect(refused.message).to.contain('--sync-period');
  });

  it('demo: refuses a timeout that is not a duration, and unknown flags', () => {
    expect(refusal(() => parseDemoFlags(['--timeout', '500ms']))).to.include({ code: 'ERR_KEYMASTER_INVALID_FLAG' });
    const unknown = refusal(() => parseDemoFlags(['--twice']));
    expect(unknown.message).to.include('--twice');
    expect(unknown.hint).to.equal('Run `keymaster demo --help` for the flags.');
  });

  it('ports: 0 (a free one) by default, whole numbers to 65535, nothing else', () => {
    expect(portFlag('kube-port', undefined)).to.equal(0);
    expect(portFlag('kube-port', '6443')).to.equal(6443);
    for (const bad of ['', '-1', '65536', '80.5', 'http'])
      expect(refusal(() => portFlag('kube-port', bad)).message, bad).to.include('--kube-port=');
  });
});
