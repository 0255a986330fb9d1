import type { Clock } from '../clock.js';
import { principalContext, withKeys } from '../iam/context.js';
import { deniedMessage, evaluate } from '../iam/evaluate.js';
import type { ApiError } from '../protocols/api-error.js';
import type { Protocol } from '../protocols/protocol.js';
import type { QueryParams } from '../protocols/query-params.js';
import type { Xml } from '../protocols/xml.js';
import type { Credential, Principal } from '../world/directory.js';
import type { WorldState } from '../world/state.js';

export type Permission =
  { readonly allowed: true } | { readonly allowed: false; readonly message: string; readonly explicitDeny: boolean };

/** What an action handler may use: who calls, where, the world, and the caller's permissions. */
export interface CallContext {
  readonly credential: Credential;
  readonly principal: Principal;
  readonly region: string;
  readonly world: WorldState;
  readonly clock: Clock;
  /** What the caller's policies say about an action on a resource, with AWS's sentence when refused. */
  permits(action: string, resource: string, keys?: Readonly<Record<string, readonly string[]>>): Permission;
  /** The service's own access-denied error (AccessDenied, UnauthorizedOperation, AccessDeniedException). */
  accessDenied(message: string): ApiError;
  /** Throws the service's access-denied error unless the caller may. */
  authorize(action: string, resource: string, keys?: Readonly<Record<string, readonly string[]>>): void;
  /** Adds facts (never secrets) to this call's entry in the call log. */
  note(detail: Readonly<Record<string, unknown>>): void;
}

export type Handler<Input> = (input: Input, call: CallContext) => Xml | object;

/** What an action that takes no signature (AssumeRoleWithWebIdentity) may use: no caller, no permissions. */
export interface UnsignedCallContext {
  readonly world: WorldState;
  readonly clock: Clock;
  /** Adds facts (never secrets) to this call's entry in the call log. */
  note(detail: Readonly<Record<string, unknown>>): void;
}

export type UnsignedHandler = (input: QueryParams, call: UnsignedCallContext) => Promise<Xml>;

interface ServiceBase {
  /** The SigV4 signing name, also the `service` of faults and the call log. */
  readonly signingName: string;
  /** The prefix of the service's IAM actions (`tag` for the tagging API). */
  readonly iamPrefix: string;
  readonly protocol: Protocol;
  readonly maxSkewSeconds: number;
  readonly accessDenied: (message: string) => ApiError;
  /** The error the service answers when a throttling bucket is empty. */
  readonly throttled: () => ApiError;
}

export interface QueryService extends ServiceBase {
  readonly input: 'query';
  /** The API version clients send as `Version`. */
  readonly version: string;
  readonly actions: Readonly<Record<string, Handler<QueryParams>>>;
  /** Actions AWS serves without a signature (the caller proves itself otherwise). */
  readonly unsignedActions?: Readonly<Record<string, UnsignedHandler>>;
}

export interface JsonService extends ServiceBase {
  readonly input: 'json';
  /** The `X-Amz-Target` prefix before `.Action`. */
  readonly targetPrefix: string;
  readonly actions: Readonly<Record<string, Handler<Record<string, unknown>>>>;
}

export type Service = QueryService | JsonService;

export function createCallContext(
  service: Service,
  credential: Credential,
  region: string,
  world: WorldState,
  clock: Clock,
  notes: Record<string, unknown>,
): CallContext {
  const { principal } = credential;
  const base = principalContext(principal, region, clock.now());
  const identityPolicies = principal.kind === 'user' ? principal.policies : principal.role.policies;
  const sessionPolicies = principal.kind === 'user' ? [] : principal.sessionPolicies;
  const permits: CallContext['permits'] = (action, resource, keys = {}) => {
    const decision = evaluate({ action, resource, context: withKeys(base, keys) }, identityPolicies, sessionPolicies);
    if (decision.allowed) return decision;
    return {
      allowed: false,
      message: deniedMessage(principal.arn, { action, resource }, decision.reason),
      explicitDeny: decision.explicitDeny,
    };
  };
  return {
    credential,
    principal,
    region,
    world,
    clock,
    permits,
    accessDenied: service.accessDenied,
    authorize(action, resource, keys) {
      const permission = permits(action, resource, keys);
      if (!permission.allowed) throw service.accessDenied(permission.message);
    },
    note: (detail) => Object.assign(notes, detail),
  };
}
