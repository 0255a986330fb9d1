import type { CallLog, CallRecord } from './calls.js';
import type { Clock } from './clock.js';
import type { Faults } from './faults/faults.js';
import type { Quotas } from './quotas/quotas.js';
import { requestId as newRequestId } from './ids.js';
import { ApiError } from './protocols/api-error.js';
import type { Xml } from './protocols/xml.js';
import { classify } from './protocols/classify.js';
import { authenticate, type SignedRequest } from './sigv4/authenticate.js';
import { createCallContext, type Service } from './services/service.js';
import type { WorldState } from './world/state.js';

/** Everything one emulator instance holds. */
export interface Emulation {
  readonly world: WorldState;
  readonly clock: Clock;
  readonly faults: Faults;
  readonly quotas: Quotas;
  readonly calls: CallLog;
  readonly services: readonly Service[];
}

export interface ApiResponse {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
  readonly requestId: string;
}

/**
 * One AWS API call, in AWS's order: find the service and action, verify the signature, apply injected
 * latency, faults and throttling, then AWS's request quotas, then run the action under the caller's
 * permissions. Every call is recorded, refused ones too.
 */
export async function handleApiCall(emulation: Emulation, request: SignedRequest): Promise<ApiResponse> {
  const requestId = newRequestId();
  const header = (name: string) => {
    const values = request.headerValues(name);
    return values.length === 0 ? undefined : values.join(',');
  };
  const {
    service,
    action: actionName,
    params,
  } = classify({ header, query: request.query, body: request.body }, emulation.services);
  const { protocol } = service;
  const iamAction = `${service.iamPrefix}:${actionName || 'Unknown'}`;
  /** What the call log learns as the call goes on: who called, and the action's own notes. */
  let caller: Pick<CallRecord, 'region' | 'account' | 'callerArn' | 'accessKeyId'> = {};
  const notes: Record<string, unknown> = {};
  const time = emulation.clock.now().toISOString();
  const respond = (status: number, body: string, errorCode?: string): ApiResponse => {
    emulation.calls.record({
      time,
      service: service.signingName,
      action: iamAction,
      requestId,
      ...caller,
      outcome: errorCode === undefined ? 'success' : 'error',
      status,
      ...(errorCode === undefined ? {} : { errorCode }),
      ...(Object.keys(notes).length > 0 ? { detail: notes } : {}),
    });
    return { status, contentType: protocol.contentType, body, requestId };
  };
  const fail = (error: ApiError) => respond(error.status, protocol.error(error, requestId), error.code);
  /** Runs an action: its answer, or its error in the service's shape (an unexpected one as AWS's 500). */
  const run = async (action: () => Xml | object | Promise<Xml | object>): Promise<ApiResponse> => {
    try {
      return respond(200, protocol.success(actionName, await action(), requestId));
    } catch (error) {
      if (error instanceof ApiError) return fail(error);
      process.stderr.write(`aws-emulator: ${iamAction} failed: ${(error as Error).stack ?? String(error)}\n`);
      return fail(
        new ApiError('InternalFailure', 'The request processing has failed because of an unknown error.', 500),
      );
    }
  };
  /** Injected latency, faults and throttling, then AWS's quotas, in that order; the error to answer with, if any. */
  const faults = async (account: string, region: string): Promise<ApiError | undefined> => {
    const latency = emulation.faults.latencyFor(iamAction);
    if (latency > 0) await new Promise((resolve) => setTimeout(resolve, latency));
    const injected = emulation.faults.injectedError(iamAction);
    if (injected !== undefined) return injected;
    if (emulation.faults.throttled(iamAction, account, region)) return service.throttled();
    return emulation.quotas.admits(iamAction, account, region) ? undefined : service.throttled();
  };

  // Unsigned actions: whoever calls proves itself in the parameters (a web identity token), not by a signature.
  const unsigned = service.input === 'query' ? service.unsignedActions?.[actionName] : undefined;
  if (unsigned !== undefined) {
    const refused = await faults(/^arn:aws:iam::(\d{12}):/.exec(params.get('RoleArn') ?? '')?.[1] ?? '', '');
    if (refused !== undefined) return fail(refused);
    const call = {
      world: emulation.world,
      clock: emulation.clock,
      note: (detail: object) => Object.assign(notes, detail),
    };
    return run(() => unsigned(params, call));
  }

  const authentication = authenticate(request, emulation.world.directory, {
    service: service.signingName,
    maxSkewSeconds: service.maxSkewSeconds,
    clock: emulation.clock,
  });
  if (!authentication.ok) {
    const { failure } = authentication;
    const owner = failure.credential?.principal;
    caller = {
      ...(failure.accessKeyId === undefined ? {} : { accessKeyId: failure.accessKeyId }),
      ...(owner === undefined ? {} : { callerArn: owner.arn, account: owner.accountId }),
    };
    return fail(protocol.authError(failure.kind, failure.message));
  }
  const { credential, claims } = authentication;
  const { principal } = credential;
  caller = {
    region: claims.region,
    account: principal.accountId,
    callerArn: principal.arn,
    accessKeyId: credential.accessKeyId,
  };

  const refused = await faults(principal.accountId, claims.region);
  if (refused !== undefined) return fail(refused);

  const call = createCallContext(service, credential, claims.region, emulation.world, emulation.clock, notes);
  if (service.input === 'query') {
    const handler = service.actions[actionName];
    if (handler === undefined) return fail(protocol.unknownAction(actionName));
    return run(() => handler(params, call));
  }
  const handler = service.actions[actionName];
  if (handler === undefined) return fail(protocol.unknownAction(actionName));
  return run(() => handler(readJson(request.body), call));
}

function readJson(body: Buffer): Record<string, unknown> {
  if (body.length === 0) return {};
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch {
    throw new ApiError('SerializationException', 'The request body is not valid JSON.');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ApiError('SerializationException', 'The request body must be a JSON object.');
  }
  return value as Record<string, unknown>;
}
