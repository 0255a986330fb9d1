import { expect } from 'chai';
import { runDemo } from '../../src/demo/demo.js';
import { DEMO_WORLD, EXAMPLES_DIR } from '@keymaster/testenv';

describe('keymaster demo: the plan and the explanation under the summary', function () {
  this.timeout(90_000);

  it('shows every cluster with nothing left to change, and every refusing link of the refused one with its fix', async () => {
    const text: string[] = [];
    const result = await runDemo({
      world: DEMO_WORLD,
      examples: EXAMPLES_DIR,
      once: true,
      timeoutMs: 60_000,
      out: { write: (chunk: string) => text.push(chunk) },
      signal: new AbortController().signal,
    });
    const output = text.join('');
    expect(result.converged, output).to.equal(true);
    const plan = output.slice(output.indexOf('Dry run now (`keymaster plan -A`'));
    for (const cluster of ['tenant-a/payments-prod', 'tenant-b/analytics-dev', 'tenant-b/analytics-prod'])
      expect(plan).to.match(
        new RegExp(`^ {2}${cluster}: (\\d+) resource\\(s\\): 0 to change .*, \\1 in sync, 0 skipped$`, 'm'),
      );
    expect(plan).to.match(/^ {2}tenant-c\/reporting-prod: no plan \(Refused\)$/m);
    const why = output.slice(output.indexOf('Why tenant-c/reporting-prod is refused'));
    expect(why.match(/^ {2}\s*└─ ✗ /gm), why).to.have.length(3);
    expect(why).to.include('Fix (3):');
    expect(why).to.include(
      '1. AWSClusterRoleIdentity/tenant-b: Add "tenant-c" to spec.allowedNamespaces of AWSClusterRoleIdentity/tenant-b',
    );
  });
});
