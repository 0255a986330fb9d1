import { ControlRequestError } from '../errors.js';
import type { Condition } from '../iam/conditions.js';
import { allowPolicy, parseConditionBlock, parsePolicyDocument, type PolicyDocument } from '../iam/policy.js';
import { OidcProvider } from '../oidc/provider.js';
import { secretAccessKey, sessionAccessKeyId, sessionToken, stableId } from '../ids.js';
import type { AccessKeySpec, ManagedPolicy, TrustSpec, World } from './types.js';

export interface User {
  readonly kind: 'user';
  readonly accountId: string;
  readonly name: string;
  readonly arn: string;
  /** The unique ID GetCallerIdentity reports (`AIDA...`). */
  readonly userId: string;
  readonly policies: readonly PolicyDocument[];
}

/** A statement of a role's trust policy, its conditions compiled. */
export interface TrustStatement extends TrustSpec {
  readonly compiledConditions: readonly Condition[];
}

export interface Role {
  readonly accountId: string;
  readonly name: string;
  readonly arn: string;
  readonly roleId: string;
  readonly maxSessionDuration: number;
  readonly trust: readonly TrustStatement[];
  readonly policies: readonly PolicyDocument[];
}

/** A session AssumeRole created: it acts as its role, narrowed by its session policies. */
export interface RoleSession {
  readonly kind: 'assumed-role';
  readonly accountId: string;
  readonly role: Role;
  readonly sessionName: string;
  /** `arn:aws:sts::<account>:assumed-role/<role>/<session>` */
  readonly arn: string;
  /** `<role ID>:<session name>` */
  readonly userId: string;
  readonly sessionPolicies: readonly PolicyDocument[];
  readonly tags: ReadonlyMap<string, string>;
  readonly transitiveTagKeys: ReadonlySet<string>;
  readonly expiresAtMs: number;
  /** Whether a role session assumed this one (role chaining, capped at one hour). */
  readonly chained: boolean;
  /** The ARN of the principal that called AssumeRole, or of the OIDC provider of AssumeRoleWithWebIdentity. */
  readonly sourceArn: string;
}

export type Principal = User | RoleSession;

/** An access key and who it belongs to. Session keys also carry their token and expiry. */
export interface Credential {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly principal: Principal;
  readonly sessionToken?: string;
}

/** Who exists: accounts, users with their keys, roles, managed policies, and the sessions STS issued. */
export class Directory {
  readonly accountIds: ReadonlySet<string>;
  readonly #users = new Map<string, User>();
  readonly #roles = new Map<string, Role>();
  readonly #policies = new Map<string, ManagedPolicy>();
  /** OIDC providers by ARN. */
  readonly #providers = new Map<string, OidcProvider>();
  readonly #credentials = new Map<string, Credential>();
  readonly #sessions: { accessKeyId: string; session: RoleSession }[] = [];

  constructor(world: World) {
    this.accountIds = new Set(world.accounts.map((account) => account.id));
    for (const account of world.accounts) {
      for (const policy of account.policies ?? []) {
        this.#policies.set(policy.arn, {
          arn: policy.arn,
          document: parsePolicyDocument(policy.document) as PolicyDocument,
        });
      }
    }
    for (const account of world.accounts) {
      for (const spec of account.oidcProviders ?? []) {
        const provider = new OidcProvider(account.id, spec);
        this.#providers.set(provider.arn, provider);
      }
      for (const spec of account.users ?? []) {
        const arn = `arn:aws:iam::${account.id}:user/${spec.name}`;
        const policies = this.#identityPolicies(spec.allow, spec.policies);
        const user: User = {
          kind: 'user',
          accountId: account.id,
          name: spec.name,
          arn,
          userId: stableId('AIDA', arn),
          policies,
        };
        this.#users.set(arn, user);
        for (const key of spec.accessKeys ?? []) this.#credentials.set(key.accessKeyId, { ...key, principal: user });
      }
      for (const spec of account.roles ?? []) {
        const arn = `arn:aws:iam::${account.id}:role/${spec.name}`;
        this.#roles.set(arn, {
          accountId: account.id,
          name: spec.name,
          arn,
          roleId: stableId('AROA', arn),
          maxSessionDuration: spec.maxSessionDuration ?? 3600,
          trust: (spec.trust ?? []).map((statement) => ({
            ...statement,
            compiledConditions: parseConditionBlock(statement.conditions ?? {}) as Condition[],
          })),
          policies: this.#identityPolicies(spec.allow, spec.policies),
        });
      }
    }
  }

  credential(accessKeyId: string): Credential | undefined {
    return this.#credentials.get(accessKeyId);
  }

  role(arn: string): Role | undefined {
    return this.#roles.get(arn);
  }

  managedPolicy(arn: string): ManagedPolicy | undefined {
    return this.#policies.get(arn);
  }

  /** The OIDC provider of an account for an issuer (`iss`), as AssumeRoleWithWebIdentity looks it up. */
  oidcProvider(accountId: string, issuer: string): OidcProvider | undefined {
    return [...this.#providers.values()].find(
      (provider) => provider.arn.split(':')[4] === accountId && provider.url === issuer,
    );
  }

  /** Records a new session and issues its temporary credentials. */
  issueSession(session: RoleSession): Credential {
    const credential: Credential = {
      accessKeyId: sessionAccessKeyId(),
      secretAccessKey: secretAccessKey(),
      sessionToken: sessionToken(),
      principal: session,
    };
    this.#credentials.set(credential.accessKeyId, credential);
    this.#sessions.push({ accessKeyId: credential.accessKeyId, session });
    return credential;
  }

  /** Every session issued so far, oldest first, without secrets. */
  sessions(): { accessKeyId: string; session: RoleSession }[] {
    return [...this.#sessions];
  }

  /** Gives a user one more access key (key rotation). */
  addAccessKey(userArn: string, key: AccessKeySpec): void {
    const user = this.#users.get(userArn);
    if (user === undefined) {
      throw new ControlRequestError(404, `no user ${userArn} in the world`, 'Name a user ARN the world file defines.');
    }
    if (!/^AKIA[A-Z0-9]{12,124}$/.test(key.accessKeyId) || !/^\S{1,128}$/.test(key.secretAccessKey)) {
      throw new ControlRequestError(
        400,
        'accessKeyId must be AKIA followed by 12-124 capital letters or digits, and secretAccessKey 1-128 characters without spaces',
        'Send {"userArn", "accessKeyId", "secretAccessKey"}.',
      );
    }
    if (this.#credentials.has(key.accessKeyId)) {
      throw new ControlRequestError(409, `access key ${key.accessKeyId} already exists`, 'Use a new access key ID.');
    }
    this.#credentials.set(key.accessKeyId, { ...key, principal: user });
  }

  /** Deletes a user's access key; calls signed with it then fail as with an unknown key. */
  deleteAccessKey(accessKeyId: string): boolean {
    const credential = this.#credentials.get(accessKeyId);
    if (credential?.principal.kind !== 'user') return false;
    return this.#credentials.delete(accessKeyId);
  }

  #identityPolicies(allow: readonly string[] | undefined, attached: readonly string[] | undefined): PolicyDocument[] {
    const policies = (attached ?? []).map((arn) => this.#policies.get(arn)!.document);
    return allow === undefined || allow.length === 0 ? policies : [allowPolicy(allow), ...policies];
  }
}
