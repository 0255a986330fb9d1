import { EC2Client } from '@aws-sdk/client-ec2';
import { ResourceGroupsTaggingAPIClient } from '@aws-sdk/client-resource-groups-tagging-api';
import { AssumeRoleCommand, STSClient, type AssumeRoleCommandInput } from '@aws-sdk/client-sts';
import { expect } from 'chai';
import { REGION } from './world.js';

// The SDK warns once per process that its releases after January 2027 need Node 22; this project runs Node 20.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

export interface Keys {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
}

/** Client options shared by every test client: the emulator's endpoint, one attempt (no retries hiding errors). */
function options(url: string, keys: Keys, region: string) {
  return { endpoint: url, region, credentials: keys, maxAttempts: 1 };
}

export function stsClient(url: string, keys: Keys, region = REGION): STSClient {
  return new STSClient(options(url, keys, region));
}

export function taggingClient(url: string, keys: Keys, region = REGION): ResourceGroupsTaggingAPIClient {
  return new ResourceGroupsTaggingAPIClient(options(url, keys, region));
}

export function ec2Client(url: string, keys: Keys, region = REGION): EC2Client {
  return new EC2Client(options(url, keys, region));
}

/** AssumeRole through the real STS client; returns the session's keys. */
export async function assumeRole(url: string, keys: Keys, input: AssumeRoleCommandInput): Promise<Keys> {
  const { Credentials } = await stsClient(url, keys).send(new AssumeRoleCommand(input));
  return {
    accessKeyId: Credentials!.AccessKeyId!,
    secretAccessKey: Credentials!.SecretAccessKey!,
    sessionToken: Credentials!.SessionToken!,
  };
}

/** The error a call fails with; fails the test when the call succeeds. */
export async function failureOf(call: Promise<unknown>): Promise<Error & { $metadata?: { httpStatusCode?: number } }> {
  try {
    await call;
  } catch (error) {
    return error as Error;
  }
  expect.fail('the call succeeded, but it should have failed');
}
