import type { Environment } from '@marcbachmann/cel-js';
import type { RbacAuthorizer, ResourceRequest } from '../../auth/rbac.js';
import type { User } from '../../auth/tokens.js';
import type { AdmissionAttributes } from '../request.js';

/**
 * The `authorizer` of admission expressions (kube-apiserver's cel library authz.go): checks of what
 * the requester, or a service account, may do, answered by the emulator's RBAC (without it,
 * everything is allowed, as AlwaysAllow answers). Label and field selectors of checks are not offered.
 */

const TYPE = 'kubernetes.authorization';

/** Who is asked about, and by what. */
class Authorizer {
  constructor(
    readonly user: User,
    readonly rbac: RbacAuthorizer | undefined,
    /** `authorizer.requestResource`: the request's own resource, namespace and name. */
    readonly requestResource: ResourceCheck | undefined,
  ) {}
}

class PathCheck {
  constructor(
    readonly authorizer: Authorizer,
    readonly path: string,
  ) {}
}

class GroupCheck {
  constructor(
    readonly authorizer: Authorizer,
    readonly group: string,
  ) {}
}

class ResourceCheck {
  constructor(
    readonly authorizer: Authorizer,
    readonly request: Omit<ResourceRequest, 'verb'>,
  ) {}

  with(change: Partial<ResourceRequest>): ResourceCheck {
    return new ResourceCheck(this.authorizer, { ...this.request, ...change });
  }
}

class Decision {
  constructor(
    readonly allowed: boolean,
    readonly reason: string,
  ) {}
}

const decide = (authorizer: Authorizer, request: ResourceRequest): Decision => {
  const decision = authorizer.rbac?.decide(authorizer.user, request) ?? { allowed: true, reason: '' };
  return new Decision(decision.allowed, decision.reason);
};

const nonEmpty = (value: string, what: string): string => {
  if (value.trim() === '') throw new Error(`${what} must not be empty`);
  return value;
};

/** Registers the authorizer's types and functions (not the variable) in a CEL environment. */
export function declareAuthorizerTypes(environment: Environment): void {
  environment
    .registerType(`${TYPE}.Decision`, { ctor: Decision, fields: {} })
    .registerType(`${TYPE}.ResourceCheck`, { ctor: ResourceCheck, fields: {} })
    .registerType(`${TYPE}.GroupCheck`, { ctor: GroupCheck, fields: {} })
    .registerType(`${TYPE}.PathCheck`, { ctor: PathCheck, fields: {} })
    .registerType(`${TYPE}.Authorizer`, { ctor: Authorizer, fields: { requestResource: `${TYPE}.ResourceCheck` } });
  // The handlers' receivers and arguments are what cel-js checked the signatures against.
  const member = (signature: string, handler: (...args: never[]) => unknown): void => {
    environment.registerFunction(`${TYPE}.${signature}`, handler as (...args: unknown[]) => unknown);
  };
  member(`Authorizer.path(string): ${TYPE}.PathCheck`, (self: Authorizer, path: string) => {
    return new PathCheck(self, nonEmpty(path, 'path'));
  });
  member(
    `Authorizer.group(string): ${TYPE}.GroupCheck`,
    (self: Authorizer, group: string) => new GroupCheck(self, group),
  );
  member(
    `Authorizer.serviceAccount(string, string): ${TYPE}.Authorizer`,
    (self: Authorizer, namespace: string, name: string) => {
      const groups = ['system:serviceaccounts', `system:serviceaccounts:${namespace}`];
      return new Authorizer(
        { name: `system:serviceaccount:${namespace}:${name}`, uid: '', groups },
        self.rbac,
        undefined,
      );
    },
  );
  member(`GroupCheck.resource(string): ${TYPE}.ResourceCheck`, (self: GroupCheck, resource: string) => {
    return new ResourceCheck(self.authorizer, { group: self.group, resource: nonEmpty(resource, 'resource') });
  });
  for (const key of ['subresource', 'namespace', 'name'] as const) {
    member(`ResourceCheck.${key}(string): ${TYPE}.ResourceCheck`, (self: ResourceCheck, value: string) =>
      self.with({ [key]: value || undefined }),
    );
  }
  member(`ResourceCheck.check(string): ${TYPE}.Decision`, (self: ResourceCheck, verb: string) =>
    decide(self.authorizer, { ...self.request, verb }),
  );
  member(`PathCheck.check(string): ${TYPE}.Decision`, (self: PathCheck, verb: string) => {
    const allowed = self.authorizer.rbac?.allowsPath(self.authorizer.user, verb.toLowerCase(), self.path) ?? true;
    return new Decision(allowed, '');
  });
  member('Decision.allowed(): bool', (self: Decision) => self.allowed);
  member('Decision.reason(): string', (self: Decision) => self.reason);
  member('Decision.errored(): bool', () => false);
  member('Decision.error(): string', () => '');
}

/** The `authorizer` of one request: its user, and its own resource as `requestResource`. */
export function authorizerValue(attributes: AdmissionAttributes, rbac: RbacAuthorizer | undefined): unknown {
  const authorizer = new Authorizer(attributes.user, rbac, undefined);
  const { resource } = attributes;
  const requestResource = new ResourceCheck(authorizer, {
    group: resource.group,
    resource: resource.plural,
    subresource: attributes.subresource,
    namespace: attributes.namespace,
    name: attributes.name || undefined,
  });
  return new Authorizer(attributes.user, rbac, requestResource);
}

export const AUTHORIZER_TYPE = `${TYPE}.Authorizer`;
