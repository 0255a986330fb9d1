import { parseConditionBlock, parsePolicyDocument, isRecord } from '../iam/policy.js';
import { parseQuotaSettings } from '../quotas/settings.js';
import { MAX_USER_TAGS, isSystemKey, tagProblem } from '../tags.js';
import { parseArn } from './arn.js';
import { fail, fieldsOf, integer, listOf, text, unique } from './fields.js';
import type { AccountSpec, ResourceSpec, RoleSpec, TrustSpec, UserSpec, World } from './types.js';
import { validateOidcProvider } from './validate-oidc.js';

const ACCOUNT_ID = { pattern: /^\d{12}$/, describe: 'a 12-digit account ID in quotes' };
const IAM_NAME = { pattern: /^[\w+=,.@-]{1,64}$/, describe: '1-64 characters of letters, digits and + = , . @ _ -' };
const ACCESS_KEY_ID = {
  pattern: /^AKIA[A-Z0-9]{12,124}$/,
  describe: 'AKIA followed by 12-124 capital letters or digits',
};
const SECRET = { pattern: /^\S{1,128}$/, describe: '1-128 characters without spaces' };
const ACTION = {
  pattern: /^(\*|[a-z0-9-]+:[A-Za-z0-9*?]+)$/,
  describe: 'an IAM action pattern such as "sts:AssumeRole" or "tag:*"',
};
const POLICY_ARN = {
  pattern: /^arn:aws:iam::\d{12}:policy\/[\w+=,.@/-]+$/,
  describe: 'arn:aws:iam::<account>:policy/<name>',
};
const PRINCIPAL = {
  pattern:
    /^(\*|\d{12}|arn:aws:iam::\d{12}:(root|user\/[\w+=,.@-]+|role\/[\w+=,.@-]+)|arn:aws:sts::\d{12}:assumed-role\/[\w+=,.@-]+\/[\w+=,.@-]+)$/,
  describe: 'a user, role or assumed-role ARN, arn:aws:iam::<account>:root, a 12-digit account ID, or "*"',
};
const EXTERNAL_ID = {
  pattern: /^[\w+=,.@:/-]{2,1224}$/,
  describe: '2-1224 characters of letters, digits and + = , . @ : / _ -',
};
const FEDERATED = {
  pattern: /^arn:aws:iam::\d{12}:oidc-provider\/\S+$/,
  describe: 'the ARN of an OIDC provider, arn:aws:iam::<account>:oidc-provider/<host and path of its URL>',
};
/** The actions a trust statement may allow, by the kind of principal it names. */
const TRUST_ACTIONS = {
  principal: ['sts:AssumeRole', 'sts:TagSession'],
  federated: ['sts:AssumeRoleWithWebIdentity', 'sts:TagSession'],
};

/** Checks a world (as read from YAML or JSON) and returns it with its defaults filled in. */
export function validateWorld(raw: unknown): World {
  const world = fieldsOf(raw, 'world', ['accounts', 'quotas']);
  const accountIds = new Set<string>();
  const accessKeyIds = new Set<string>();
  const resourceArns = new Set<string>();
  const accounts = listOf(world.accounts, 'accounts').map((item, index) =>
    validateAccount(item, `accounts[${index}]`, { accountIds, accessKeyIds, resourceArns }),
  );
  if (accounts.length === 0) fail('accounts', 'must list at least one account');
  const policyArns = new Set(accounts.flatMap((account) => (account.policies ?? []).map((policy) => policy.arn)));
  for (const [a, account] of accounts.entries()) {
    const attachers = [
      ...(account.users ?? []).map((user, u) => ({ path: `accounts[${a}].users[${u}]`, policies: user.policies })),
      ...(account.roles ?? []).map((role, r) => ({ path: `accounts[${a}].roles[${r}]`, policies: role.policies })),
    ];
    for (const { path, policies } of attachers) {
      for (const [p, arn] of (policies ?? []).entries()) {
        if (!policyArns.has(arn)) fail(`${path}.policies[${p}]`, `no account's policies define ${arn}`);
      }
    }
  }
  return {
    accounts,
    ...(world.quotas === undefined ? {} : { quotas: parseQuotaSettings(world.quotas, 'quotas', fail) }),
  };
}

interface Seen {
  accountIds: Set<string>;
  accessKeyIds: Set<string>;
  resourceArns: Set<string>;
}

function validateAccount(raw: unknown, path: string, seen: Seen): AccountSpec {
  const account = fieldsOf(raw, path, ['id', 'users', 'roles', 'policies', 'resources', 'oidcProviders']);
  const id = text(account.id, `${path}.id`, ACCOUNT_ID);
  unique(seen.accountIds, id, `${path}.id`, 'account');
  const userNames = new Set<string>();
  const users = listOf(account.users, `${path}.users`).map((item, index) => {
    const user = validateUser(item, `${path}.users[${index}]`, seen);
    unique(userNames, user.name, `${path}.users[${index}].name`, 'user');
    return user;
  });
  const providerArns = new Set<string>();
  const oidcProviders = listOf(account.oidcProviders, `${path}.oidcProviders`).map((item, index) =>
    validateOidcProvider(item, `${path}.oidcProviders[${index}]`, id, providerArns),
  );
  const roleNames = new Set<string>();
  const roles = listOf(account.roles, `${path}.roles`).map((item, index) => {
    const role = validateRole(item, `${path}.roles[${index}]`, providerArns);
    unique(roleNames, role.name, `${path}.roles[${index}].name`, 'role');
    return role;
  });
  const policyArns = new Set<string>();
  const policies = listOf(account.policies, `${path}.policies`).map((item, index) => {
    const at = `${path}.policies[${index}]`;
    const policy = fieldsOf(item, at, ['arn', 'document']);
    const arn = text(policy.arn, `${at}.arn`, POLICY_ARN);
    if (arn.split(':')[4] !== id) fail(`${at}.arn`, `must name this account (${id}), not ${arn.split(':')[4]}`);
    unique(policyArns, arn, `${at}.arn`, 'policy');
    const document = parsePolicyDocument(policy.document);
    if (typeof document === 'string') fail(`${at}.document`, document);
    return { arn, document: policy.document };
  });
  const resources = listOf(account.resources, `${path}.resources`).map((item, index) =>
    validateResource(item, `${path}.resources[${index}]`, id, seen),
  );
  return { id, users, roles, policies, resources, oidcProviders };
}

function validateUser(raw: unknown, path: string, seen: Seen): UserSpec {
  const user = fieldsOf(raw, path, ['name', 'accessKeys', 'allow', 'policies']);
  const accessKeys = listOf(user.accessKeys, `${path}.accessKeys`).map((item, index) => {
    const at = `${path}.accessKeys[${index}]`;
    const key = fieldsOf(item, at, ['accessKeyId', 'secretAccessKey']);
    const accessKeyId = text(key.accessKeyId, `${at}.accessKeyId`, ACCESS_KEY_ID);
    unique(seen.accessKeyIds, accessKeyId, `${at}.accessKeyId`, 'access key ID');
    return { accessKeyId, secretAccessKey: text(key.secretAccessKey, `${at}.secretAccessKey`, SECRET) };
  });
  return {
    name: text(user.name, `${path}.name`, IAM_NAME),
    accessKeys,
    allow: actions(user.allow, `${path}.allow`),
    policies: listOf(user.policies, `${path}.policies`).map((arn, i) =>
      text(arn, `${path}.policies[${i}]`, POLICY_ARN),
    ),
  };
}

function validateRole(raw: unknown, path: string, providerArns: ReadonlySet<string>): RoleSpec {
  const role = fieldsOf(raw, path, ['name', 'maxSessionDuration', 'trust', 'allow', 'policies']);
  const maxSessionDuration =
    role.maxSessionDuration === undefined
      ? 3600
      : integer(role.maxSessionDuration, `${path}.maxSessionDuration`, 3600, 43200);
  return {
    name: text(role.name, `${path}.name`, IAM_NAME),
    maxSessionDuration,
    trust: listOf(role.trust, `${path}.trust`).map((item, index) =>
      validateTrust(item, `${path}.trust[${index}]`, providerArns),
    ),
    allow: actions(role.allow, `${path}.allow`),
    policies: listOf(role.policies, `${path}.policies`).map((arn, i) =>
      text(arn, `${path}.policies[${i}]`, POLICY_ARN),
    ),
  };
}

/**
 * One trust statement: an AWS `principal` (with an optional ExternalId), or a `federated` OIDC provider
 * of this account (with an optional Condition block on its claims).
 */
function validateTrust(raw: unknown, path: string, providerArns: ReadonlySet<string>): TrustSpec {
  const trust = fieldsOf(raw, path, ['principal', 'federated', 'externalId', 'actions', 'conditions']);
  if ((trust.principal === undefined) === (trust.federated === undefined)) {
    fail(path, 'must name exactly one of principal (an AWS principal) and federated (an OIDC provider ARN)');
  }
  const kind = trust.federated === undefined ? 'principal' : 'federated';
  const allowed = TRUST_ACTIONS[kind];
  const trusted = trust.actions === undefined ? [allowed[0]!] : actions(trust.actions, `${path}.actions`);
  for (const [index, action] of trusted.entries()) {
    if (!allowed.includes(action)) fail(`${path}.actions[${index}]`, `must be one of ${allowed.join(', ')}`);
  }
  if (kind === 'principal') {
    if (trust.conditions !== undefined)
      fail(`${path}.conditions`, "is for federated statements only (externalId is the principal's)");
    return {
      principal: text(trust.principal, `${path}.principal`, PRINCIPAL),
      ...(trust.externalId === undefined
        ? {}
        : { externalId: text(trust.externalId, `${path}.externalId`, EXTERNAL_ID) }),
      actions: trusted,
    };
  }
  if (trust.externalId !== undefined) fail(`${path}.externalId`, 'is for principal statements only');
  const federated = text(trust.federated, `${path}.federated`, FEDERATED);
  if (!providerArns.has(federated)) {
    fail(
      `${path}.federated`,
      `${federated} is not an OIDC provider of this account (its oidcProviders define ${[...providerArns].join(', ') || 'none'})`,
    );
  }
  if (trust.conditions !== undefined) {
    const conditions = parseConditionBlock(trust.conditions);
    if (typeof conditions === 'string') fail(`${path}.conditions`, conditions);
  }
  return {
    federated,
    actions: trusted,
    ...(trust.conditions === undefined ? {} : { conditions: trust.conditions }),
  };
}

export function validateResource(
  raw: unknown,
  path: string,
  accountId: string,
  seen: Pick<Seen, 'resourceArns'>,
): ResourceSpec {
  const resource = fieldsOf(raw, path, ['arn', 'tags']);
  const arn = text(resource.arn, `${path}.arn`, { pattern: /^arn:/, describe: 'an ARN' });
  const parts = parseArn(arn);
  if (parts === undefined) fail(`${path}.arn`, `${JSON.stringify(arn)} is not a valid ARN`);
  if (parts.account !== accountId) fail(`${path}.arn`, `must name this account (${accountId}), not "${parts.account}"`);
  if (parts.region === '') fail(`${path}.arn`, 'must name a region (global resources are not emulated)');
  unique(seen.resourceArns, arn, `${path}.arn`, 'resource ARN');
  return { arn, tags: validateTags(resource.tags, `${path}.tags`) };
}

function validateTags(raw: unknown, path: string): Record<string, string> {
  if (raw === undefined) return {};
  if (!isRecord(raw)) fail(path, 'must be a map of tag keys to string values');
  for (const [key, value] of Object.entries(raw)) {
    if (typeof value !== 'string') fail(`${path}.${key}`, 'must be a string (quote numbers and booleans)');
    const problem = tagProblem(key, value, { strictCharacters: false });
    if (problem !== undefined) fail(`${path}.${key}`, problem);
  }
  // fromEntries, not assignment: `__proto__` is a valid tag key, kept as one.
  const tags = Object.fromEntries(Object.entries(raw)) as Record<string, string>;
  const userTags = Object.keys(tags).filter((key) => !isSystemKey(key)).length;
  if (userTags > MAX_USER_TAGS) fail(path, `has ${userTags} user tags; AWS allows at most ${MAX_USER_TAGS}`);
  return tags;
}

function actions(raw: unknown, path: string): string[] {
  return listOf(raw, path).map((action, index) => text(action, `${path}[${index}]`, ACTION));
}
