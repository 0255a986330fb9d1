import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { testEnvCacheDir } from '../../src/cache.js';

const run = promisify(execFile);
const SCRIPTS = fileURLToPath(new URL('../../scripts/', import.meta.url));
const IAM = fileURLToPath(new URL('../../../../deploy/iam/', import.meta.url));

/** One finding of parliament's `--json` output (a line each). */
interface Finding {
  issue: string;
  detail: unknown;
}

/**
 * What parliament, an identity-policy linter, reports of every trust policy however right: AWS's grammar
 * gives trust policies a Principal and no Resource, and parliament 1.6.4 knows SAML providers only, not
 * IAM OIDC providers (the Federated principal of IRSA and web identities). Only these two, exactly.
 */
const TRUST_POLICY_FINDINGS = (finding: Finding) =>
  (finding.issue === 'MALFORMED' && finding.detail === 'Statement contains neither Resource nor NotResource') ||
  (finding.issue === 'UNKNOWN_FEDERATION_SOURCE' &&
    /^arn:aws:iam::\d{12}:oidc-provider\/.+/.test(String(finding.detail)));

/**
 * deploy/iam, linted as CI does: every IAM policy by parliament, the CloudFormation template by cfn-lint
 * (both pinned, from PyPI, provisioned into the cache by provision-iam-linters.sh). Any finding fails.
 */
describe('deploy/iam passes parliament and cfn-lint', function () {
  this.timeout(600_000);
  let bin: string;
  let files: string[];

  before(async () => {
    // Idempotent and cached: CI's real-control-plane step provisions the linters through this test.
    const { stdout } = await run('bash', [join(SCRIPTS, 'provision-iam-linters.sh')]);
    const venv = /ready: \S+ \S+ in (\S+)|already provisioned \((\S+)\)/.exec(stdout);
    bin = join(venv?.[1] ?? venv?.[2] ?? join(testEnvCacheDir(), 'missing'), 'bin');
    files = (await readdir(IAM)).sort();
  });

  const parliament = async (file: string): Promise<Finding[]> => {
    const policy = await readFile(join(IAM, file), 'utf8');
    // --string: with --file, parliament refuses to run when stdin is not a terminal.
    const result = await run(join(bin, 'parliament'), ['--json', '--string', policy]).catch(
      (error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }),
    );
    return result.stdout
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as Finding);
  };

  it('finds the permission policies, the trust policies and the template', () => {
    expect(files.filter((file) => file.endsWith('-policy.json'))).to.have.length.greaterThan(1);
    expect(files.filter((file) => file.includes('-trust'))).to.have.length.greaterThan(3);
    expect(files).to.include('tenant-role.template.json');
  });

  it('parliament finds nothing in the permission policies', async () => {
    for (const file of files.filter((name) => name.endsWith('-policy.json'))) {
      expect(await parliament(file), file).to.deep.equal([]);
    }
  });

  it("parliament finds nothing in the trust policies but their grammar's two known to it", async () => {
    for (const file of files.filter((name) => name.includes('-trust'))) {
      const findings = await parliament(file);
      expect(
        findings.filter((finding) => !TRUST_POLICY_FINDINGS(finding)),
        file,
      ).to.deep.equal([]);
    }
  });

  it('parliament still reports a policy that allows too much (the lint runs)', async () => {
    const { stdout } = await run(join(bin, 'parliament'), [
      '--json',
      '--string',
      JSON.stringify({
        Version: '2012-10-17',
        Statement: [{ Effect: 'Allow', Action: 's3:GetObject', Resource: '*' }],
      }),
    ]).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
    expect(stdout).to.contain('RESOURCE_STAR');
  });

  it('cfn-lint finds nothing in the CloudFormation template', async () => {
    for (const file of files.filter((name) => name.endsWith('.template.json'))) {
      const result = await run(join(bin, 'cfn-lint'), ['--', join(IAM, file)]).then(
        ({ stdout }) => ({ code: 0, stdout }),
        (error: { code?: number; stdout?: string }) => ({ code: error.code, stdout: error.stdout ?? '' }),
      );
      expect(result, file).to.deep.equal({ code: 0, stdout: '' });
    }
  });
});
