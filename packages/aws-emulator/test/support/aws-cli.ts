import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Keys } from './clients.js';
import { REGION } from './world.js';

/** Debian's AWS CLI v2. A CLI v1 shim may come earlier on PATH, so tests call this path explicitly. */
export const AWS_CLI = '/usr/bin/aws';

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** A sandbox for the CLI: its own HOME and empty config files, so no user configuration leaks in. */
export class AwsCli {
  private constructor(private readonly home: string) {}

  static async create(): Promise<AwsCli> {
    if (!existsSync(AWS_CLI))
      throw new Error(`${AWS_CLI} is missing: install the AWS CLI v2 with apt-get install awscli`);
    const home = await mkdtemp(join(tmpdir(), 'aws-cli-'));
    await writeFile(join(home, 'config'), '');
    await writeFile(join(home, 'credentials'), '');
    return new AwsCli(home);
  }

  /** Runs `aws --endpoint-url URL ARGS...` with the given keys and JSON output. */
  run(url: string, keys: Keys, args: readonly string[]): Promise<CliResult> {
    const env: Record<string, string> = {
      PATH: '/usr/bin:/bin',
      HOME: this.home,
      AWS_CONFIG_FILE: join(this.home, 'config'),
      AWS_SHARED_CREDENTIALS_FILE: join(this.home, 'credentials'),
      AWS_ACCESS_KEY_ID: keys.accessKeyId,
      AWS_SECRET_ACCESS_KEY: keys.secretAccessKey,
      AWS_DEFAULT_REGION: REGION,
      AWS_MAX_ATTEMPTS: '1',
      AWS_PAGER: '',
      AWS_EC2_METADATA_DISABLED: 'true',
      ...(keys.sessionToken === undefined ? {} : { AWS_SESSION_TOKEN: keys.sessionToken }),
    };
    return new Promise((resolve) => {
      execFile(AWS_CLI, ['--endpoint-url', url, '--output', 'json', ...args], { env }, (error, stdout, stderr) => {
        resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr });
      });
    });
  }

  async dispose(): Promise<void> {
    await rm(this.home, { recursive: true, force: true });
  }
}
