import type { Service } from '../services/service.js';
import { parseForm, QueryParams } from './query-params.js';

/** Which service and action a request is for, read the way AWS's front door reads it. */
export interface Classified {
  readonly service: Service;
  readonly action: string;
  /** The query protocol's parameters (body and URL together); JSON bodies are read after authentication. */
  readonly params: QueryParams;
}

export interface ClassifyInput {
  readonly header: (name: string) => string | undefined;
  readonly query: readonly (readonly [string, string])[];
  readonly body: Buffer;
}

/**
 * JSON calls name themselves in `X-Amz-Target` (`ResourceGroupsTaggingAPI_20170126.GetResources`); query
 * calls carry `Action` and `Version` in the form body or, for presigned URLs, in the query string. When
 * `Version` is missing the credential scope's service decides, then the action's name.
 */
export function classify(input: ClassifyInput, services: readonly Service[]): Classified {
  const target = input.header('x-amz-target');
  if (target !== undefined) {
    const dot = target.lastIndexOf('.');
    const prefix = target.slice(0, dot);
    const jsonServices = services.filter((service) => service.input === 'json');
    const service = jsonServices.find((s) => s.targetPrefix === prefix) ?? jsonServices[0]!;
    return { service, action: target.slice(dot + 1), params: new QueryParams(new Map<string, string>()) };
  }
  const pairs = [...input.query];
  if ((input.header('content-type') ?? '').includes('application/x-www-form-urlencoded')) {
    pairs.push(...parseForm(input.body.toString('utf8')));
  }
  const params = new QueryParams(new Map(pairs));
  const action = params.get('Action') ?? '';
  const queryServices = services.filter((service) => service.input === 'query');
  const version = params.get('Version');
  const scope =
    /Credential=[^/]+\/\d{8}\/[^/]+\/([^/]+)\//.exec(input.header('authorization') ?? '')?.[1] ??
    params.get('X-Amz-Credential')?.split('/')[3];
  const service =
    queryServices.find((s) => s.version === version) ??
    queryServices.find((s) => s.signingName === scope) ??
    queryServices.find((s) => action in s.actions || action in (s.unsignedActions ?? {})) ??
    queryServices[0]!;
  return { service, action, params };
}
