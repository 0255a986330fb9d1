import { createHash } from 'node:crypto';
import {
  allowedActions,
  assumeRolesPolicy,
  roleTrustPolicy,
  taggingPolicy,
  type IamPolicy,
  type IamValue,
} from '@keymaster/api';
import type { ResourceSpec, RoleSpec, TrustSpec, UserSpec } from '@keymaster/aws-emulator';

/** The management account: the controller's own user and the hub role live here. */
export const MANAGEMENT = '111111111111';
export const CONTROLLER_USER = `arn:aws:iam::${MANAGEMENT}:user/keymaster-controller`;
export const HUB_ROLE = `arn:aws:iam::${MANAGEMENT}:role/keymaster-hub`;

/**
 * What tagging a cluster's resources needs: the actions of deploy/iam/tagging-policy.json (the emulator
 * checks both layers, the Tagging API's and each service's). A world's `allow` holds actions on every
 * resource; iam-policies.test.ts proves the documents themselves, resources and all.
 */
export const TAGGER = allowedActions(taggingPolicy());

/** A literal of a policy (the emulator's world has no CloudFormation parameters). */
const literal = (value: IamValue | undefined): string | undefined => {
  if (typeof value === 'object') throw new Error(`a world needs literal values, not ${JSON.stringify(value)}`);
  return value;
};

/**
 * A trust policy of deploy/iam's source in the aws-emulator's world format: per statement, its principal
 * (or OIDC provider), actions, and the externalID or the `sub`/`aud` conditions it requires.
 */
export function emulatorTrust(policy: IamPolicy): TrustSpec[] {
  return policy.Statement.map(({ Principal, Action, Condition }): TrustSpec => {
    if (Principal !== undefined && 'AWS' in Principal) {
      const externalId = literal(Condition?.['StringEquals']?.['sts:ExternalId']);
      return {
        principal: literal(Principal.AWS)!,
        actions: Action,
        ...(externalId === undefined ? {} : { externalId }),
      };
    }
    if (Principal !== undefined && 'Federated' in Principal) {
      return { federated: Principal.Federated, actions: Action, conditions: Condition };
    }
    throw new Error(`the aws-emulator's worlds have no trust for ${JSON.stringify(Principal)}`);
  });
}

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

/** The controller's user, allowed deploy/iam/assume-roles-policy.json's actions; `allow` adds to them (e.g. TAGGER when clusters use the controller identity). */
export function controllerUser(allow: string[] = []): UserSpec {
  return {
    name: 'keymaster-controller',
    accessKeys: [CONTROLLER_KEY],
    allow: [...allowedActions(assumeRolesPolicy()), ...allow],
  };
}

/** The hub role (deploy/iam/hub-trust.json's trust): the controller's user may assume it, and it may only assume roles. */
export function hubRole(): RoleSpec {
  return {
    name: 'keymaster-hub',
    trust: emulatorTrust(roleTrustPolicy({ principal: CONTROLLER_USER })),
    allow: allowedActions(assumeRolesPolicy()),
  };
}

/** A tenant role (deploy/iam/tenant-trust.json's trust) that may tag, assumable by `principal` with `externalId`. */
export function tenantRole(name: string, principal: string, externalId?: string): RoleSpec {
  return {
    name,
    trust: emulatorTrust(roleTrustPolicy({ principal, ...(externalId === undefined ? {} : { externalId }) })),
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
