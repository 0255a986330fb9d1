import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EC2Client } from '@aws-sdk/client-ec2';
import { ResourceGroupsTaggingAPIClient } from '@aws-sdk/client-resource-groups-tagging-api';
import { STSClient } from '@aws-sdk/client-sts';
import type { V1Secret } from '@kubernetes/client-node';

// The SDK warns once per process that its releases after January 2027 need Node 22; this project runs Node 20.
process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] = 'true';

export interface SessionKeys {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string;
}

/** A Secret's data, decoded, as a pod sees it through envFrom or a volume. */
export const secretData = (secret: V1Secret): Record<string, string> =>
  Object.fromEntries(
    Object.entries(secret.data ?? {}).map(([key, value]) => [key, Buffer.from(value, 'base64').toString('utf8')]),
  );

/** The keys of a Secret in the Environment format (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN). */
export function environmentKeys(data: Record<string, string>): SessionKeys {
  const { AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN } = data;
  if (!AWS_ACCESS_KEY_ID || !AWS_SECRET_ACCESS_KEY || !AWS_SESSION_TOKEN)
    throw new Error(`the Secret holds no session keys (keys: ${Object.keys(data).join(', ') || 'none'})`);
  return { accessKeyId: AWS_ACCESS_KEY_ID, secretAccessKey: AWS_SECRET_ACCESS_KEY, sessionToken: AWS_SESSION_TOKEN };
}

/** The real SDK's clients acting with the keys, at the emulated AWS; one attempt, so a refusal shows as it is. */
export function sdkClients(url: string, keys: SessionKeys, region: string) {
  const options = { endpoint: url, region, credentials: keys, maxAttempts: 1 };
  return {
    sts: new STSClient(options),
    tagging: new ResourceGroupsTaggingAPIClient(options),
    ec2: new EC2Client(options),
  };
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The AWS CLIs of this machine: v2 (Debian's, always at /usr/bin/aws) and whatever `aws` PATH finds
 * first (here a v1 from pip). A test runs each one that exists.
 */
export const AWS_CLIS = [
  { name: 'AWS CLI v2 (/usr/bin/aws)', command: '/usr/bin/aws' },
  { name: 'AWS CLI on PATH', command: 'aws' },
].filter(({ command }) => command !== '/usr/bin/aws' || existsSync(command));

/**
 * Runs `aws --endpoint-url URL ARGS` as a pod would, with only `env` (e.g. the Secret's variables, or
 * AWS_SHARED_CREDENTIALS_FILE) and a HOME of its own, so no configuration of the machine leaks in.
 */
export async function runAwsCli(
  command: string,
  url: string,
  env: Record<string, string>,
  args: readonly string[],
): Promise<CliResult> {
  const home = await mkdtemp(join(tmpdir(), 'keymaster-e2e-cli-'));
  try {
    await writeFile(join(home, 'config'), '');
    const fullEnv = {
      PATH: process.env['PATH'] ?? '/usr/bin:/bin',
      HOME: home,
      AWS_CONFIG_FILE: join(home, 'config'),
      AWS_SHARED_CREDENTIALS_FILE: join(home, 'no-credentials'),
      AWS_DEFAULT_REGION: 'us-west-2',
      AWS_MAX_ATTEMPTS: '1',
      AWS_PAGER: '',
      AWS_EC2_METADATA_DISABLED: 'true',
      ...env,
    };
    return await new Promise((resolve) => {
      execFile(
        command,
        ['--endpoint-url', url, '--output', 'json', ...args],
        { env: fullEnv },
        (error, stdout, stderr) => {
          resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr });
        },
      );
    });
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

/** Writes a file (e.g. the Secret's `credentials`) where a CLI can read it; removed by the returned function. */
export async function mountedFile(content: string): Promise<{ path: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'keymaster-e2e-mount-'));
  const path = join(dir, 'credentials');
  await writeFile(path, content, { mode: 0o600 });
  return { path, remove: () => rm(dir, { recursive: true, force: true }) };
}
