import { createHash } from 'node:crypto';
import type { ResourceSpec, RoleSpec, UserSpec } from '@keymaster/aws-emulator';

/** The management account: the controller's own user and the hub role live here. */
export const MANAGEMENT = '111111111111';
export const CONTROLLER_USER = `arn:aws:iam::${MANAGEMENT}:user/keymaster-controller`;
export const HUB_ROLE = `arn:aws:iam::${MANAGEMENT}:role/keymaster-hub`;

/** What tagging a cluster's EC2 resources through the tagging API needs (the emulator checks both layers). */
export const TAGGER = [
  'tag:GetResources',
  'tag:TagResources',
  'tag:UntagResources',
  'ec2:CreateTags',
  'ec2:DeleteTags',
];

export interface AccessKey {
  accessKeyId: string;
  secretAccessKey: string;
}

const digest = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * A long-term key pair, the same for the same name in every run. Frozen: the AWS SDK marks the credentials
 * object it is given (`$source`), and a marked key in a later world is an unknown field; give clients a copy.
 */
export function accessKey(name: string): Readonly<AccessKey> {
  const hash = digest(name);
  return Object.freeze({
    accessKeyId: `AKIA${hash.slice(0, 16).toUpperCase()}`,
    secretAccessKey: `e2e/${hash.slice(16, 52)}`,
  });
}

export const CONTROLLER_KEY = accessKey('keymaster-controller');

/** The controller's user; `allow` adds to sts:AssumeRole (e.g. TAGGER when clusters use the controller identity). */
export function controllerUser(allow: string[] = []): UserSpec {
  return { name: 'keymaster-controller', accessKeys: [CONTROLLER_KEY], allow: ['sts:AssumeRole', ...allow] };
}

/** The hub role: the controller's user may assume it, and it may only assume tenant roles. */
export function hubRole(): RoleSpec {
  return {
    name: 'keymaster-hub',
    trust: [{ principal: CONTROLLER_USER }],
    allow: ['sts:AssumeRole', 'sts:TagSession'],
  };
}

/** A tenant role that may tag, assumable by `principal` with `externalId`. */
export function tenantRole(name: string, principal: string, externalId?: string): RoleSpec {
  return {
    name,
    trust: [{ principal, ...(externalId ? { externalId } : {}), actions: ['sts:AssumeRole', 'sts:TagSession'] }],
    allow: TAGGER,
  };
}

export const roleArn = (account: string, name: string) => `arn:aws:iam::${account}:role/${name}`;
export const userArn = (account: string, name: string) => `arn:aws:iam::${account}:user/${name}`;

const RESOURCE_TYPES = [
  ['instance', 'i'],
  ['volume', 'vol'],
  ['security-group', 'sg'],
] as const;

/**
 * `count` EC2 resources of a cluster in one region, carrying its CAPA ownership tag (`owned`) and a
 * tag of someone else's that Keymaster must leave alone. IDs are stable per cluster and index.
 */
export function clusterResources(
  account: string,
  region: string,
  clusterName: string,
  count: number,
  tags: Record<string, string> = {},
): ResourceSpec[] {
  return Array.from({ length: count }, (_, index) => {
    const [type, prefix] = RESOURCE_TYPES[index % RESOURCE_TYPES.length]!;
    const id = `${prefix}-${digest(`${account}/${region}/${clusterName}/${index}`).slice(0, 17)}`;
    return {
      arn: `arn:aws:ec2:${region}:${account}:${type}/${id}`,
      tags: { [`sigs.k8s.io/cluster-api-provider-aws/cluster/${clusterName}`]: 'owned', backup: 'daily', ...tags },
    };
  });
}
