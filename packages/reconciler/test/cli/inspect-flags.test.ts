import { expect } from 'chai';
import { parseInspectFlags } from '../../src/cli/inspect-flags.js';
import { EXPLAIN_OUTPUTS, PLAN_OUTPUTS } from '../../src/inspect/output-format.js';

function refusal(parse: () => unknown): Error & { code: string; hint?: string } {
  try {
    parse();
  } catch (error) {
    return error as Error & { code: string; hint?: string };
  }
  return expect.fail('expected a refusal');
}

describe('keymaster plan and explain flags', () => {
  const plan = (...args: string[]) => parseInspectFlags('plan', args, false, PLAN_OUTPUTS);
  const explain = (...args: string[]) => parseInspectFlags('explain', args, true, EXPLAIN_OUTPUTS);

  it("takes the controller's flags with the controller's defaults", () => {
    expect(plan('-A')).to.deep.equal({
      targets: { all: true },
      output: 'table',
      kubeconfig: undefined,
      local: false,
      controllerNamespace: 'keymaster-system',
      stsRegion: 'us-east-1',
      tagLayerGracePeriodMs: 600_000,
      tenantLabel: 'keymaster.dev/tenant',
    });
    expect(
      plan(
        '-n',
        'tenant-b',
        '-o',
        'yaml',
        '--kubeconfig',
        'kc',
        '--controller-namespace',
        'ops',
        '--sts-region',
        'eu-west-1',
        '--tenant-label',
        'example.com/team',
        '--local',
      ),
    ).to.deep.include({
      targets: { namespace: 'tenant-b' },
      output: 'yaml',
      kubeconfig: 'kc',
      local: true,
      controllerNamespace: 'ops',
      stsRegion: 'eu-west-1',
      tenantLabel: 'example.com/team',
    });
  });

  it('names one cluster as NAMESPACE/NAME or NAME -n NAMESPACE, kubectl style', () => {
    const one = { cluster: { namespace: 'tenant-b', name: 'dev' } };
    expect(plan('tenant-b/dev')?.targets).to.deep.equal(one);
    expect(plan('dev', '-n', 'tenant-b')?.targets).to.deep.equal(one);
    expect(explain('tenant-b/dev', '--namespace=tenant-b')?.targets).to.deep.equal(one);
    expect(plan('--namespace', 'tenant-b')?.targets).to.deep.equal({ namespace: 'tenant-b' });
    expect(plan('--help')).to.equal(undefined);
  });

  it('refuses what names no cluster, or two ways at once, with the forms that work', () => {
    const none = refusal(() => plan());
    expect(none).to.include({
      code: 'ERR_KEYMASTER_INVALID_ARGUMENT',
      message: 'keymaster plan: no cluster named and no -n or -A',
    });
    expect(none.hint).to.equal('Name the clusters as NAMESPACE/NAME (or NAME -n NAMESPACE), -n NAMESPACE or -A.');
    expect(refusal(() => plan('dev')).message).to.equal(
      'keymaster plan: "dev" is not NAMESPACE/NAME (or give -n NAMESPACE)',
    );
    expect(refusal(() => plan('a/b/c')).message).to.include('"a/b/c" is not NAMESPACE/NAME');
    expect(refusal(() => plan('a/b', 'c/d')).message).to.include('expected one cluster, got 2');
    expect(refusal(() => plan('-A', '-n', 'x')).message).to.include('-A names every cluster');
    expect(refusal(() => plan('a/b', '-n', 'c')).message).to.include('is not in the namespace -n c');
    expect(refusal(() => explain('-n', 'tenant-b')).message).to.equal('keymaster explain: no cluster named');
    expect(refusal(() => explain('-A')).message).to.include('-A is for `keymaster plan`');
  });

  it('refuses the renamed --cluster-namespace, naming the new flags', () => {
    for (const args of [['--cluster-namespace', 'tenant-b'], ['--cluster-namespace=tenant-b']]) {
      const renamed = refusal(() => plan(...args));
      expect(renamed).to.include({
        code: 'ERR_KEYMASTER_INVALID_FLAG',
        message: 'keymaster plan: --cluster-namespace is now -n/--namespace',
      });
      expect(renamed.hint).to.include('--controller-namespace');
    }
  });

  it('refuses a bad flag value naming the flag, and unknown flags', () => {
    const xml = refusal(() => plan('-A', '-o', 'xml'));
    expect(xml.message).to.equal('--output="xml": must be one of table, wide, name, json, yaml');
    expect(xml.hint).to.equal('Use -o table, -o wide, -o name, -o json, -o yaml.');
    for (const output of ['wide', 'name']) {
      expect(plan('-A', '-o', output)?.output).to.equal(output);
      const refused = refusal(() => explain('a/b', '-o', output));
      expect(refused.message).to.equal(`--output="${output}": must be one of table, json, yaml`);
      expect(refused.hint).to.equal('Use -o table, -o json, -o yaml.');
    }
    expect(refusal(() => plan('-A', '--tag-layer-grace-period', 'soon')).message).to.include(
      '--tag-layer-grace-period',
    );
    expect(refusal(() => plan('-A', '--tenant-label', 'not a key')).message).to.equal(
      '--tenant-label="not a key": is not a label key',
    );
    const unknown = refusal(() => plan('-A', '--watch-namespace', 'x'));
    expect(unknown).to.include({ code: 'ERR_KEYMASTER_INVALID_FLAG' });
    expect(unknown.hint).to.equal('Run `keymaster plan --help` for the flags.');
  });
});
