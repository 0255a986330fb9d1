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

  /** A linter's exit code and output: a finding is a non-zero exit, not an error of the test. */
  const lint = (tool: string, args: string[]): Promise<{ code: number; stdout: string }> =>
    run(join(bin, tool), args).then(
      ({ stdout }) => ({ code: 0, stdout }),
      (error: unknown) => {
        const { code, stdout } = error as { code?: number; stdout?: string };
        return { code: code ?? -1, stdout: stdout ?? '' };
      },
    );

  // --string: with --file, parliament refuses to run when stdin is not a terminal.
  const parliament = async (policy: string): Promise<Finding[]> =>
    (await lint('parliament', ['--json', '--string', policy])).stdout
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as Finding);
  const parliamentOf = async (file: string) => parliament(await readFile(join(IAM, file), 'utf8'));

  it('finds the permission policies, the trust policies and the template, and nothing it would not lint', () => {
    const linted = (file: string) =>
      file.endsWith('-policy.json') || file.includes('-trust') || file.endsWith('.template.json');
    expect(files.filter((file) => !linted(file))).to.deep.equal([]);
    expect(files.filter((file) => file.endsWith('-policy.json'))).to.have.length.greaterThan(1);
    expect(files.filter((file) => file.includes('-trust'))).to.have.length.greaterThan(3);
    expect(files).to.include('tenant-role.template.json');
  });

  it('parliament finds nothing in the permission policies', async () => {
    for (const file of files.filter((name) => name.endsWith('-policy.json'))) {
      expect(await parliamentOf(file), file).to.deep.equal([]);
    }
  });

  it("parliament finds nothing in the trust policies but their grammar's two known to it", async () => {
    for (const file of files.filter((name) => name.includes('-trust'))) {
      const findings = await parliamentOf(file);
      expect(
        findings.filter((finding) => !TRUST_POLICY_FINDINGS(finding)),
        file,
      ).to.deep.equal([]);
    }
  });

  it('parliament still reports a policy that allows too much (the lint runs)', async () => {
    const findings = await parliament(
      JSON.stringify({
        Version: '2012-10-17',
        Statement: [{ Effect: 'Allow', Action: 's3:GetObject', Resource: '*' }],
      }),
    );
    expect(findings.map(({ issue }) => issue)).to.include('RESOURCE_STAR');
  });

  it('cfn-lint finds nothing in the CloudFormation template', async () => {
    for (const file of files.filter((name) => name.endsWith('.template.json'))) {
      const result = await lint('cfn-lint', ['--', join(IAM, file)]);
      expect(result, file).to.deep.equal({ code: 0, stdout: '' });
    }
  });
});
