import type { User } from '../auth/tokens.js';
import { decodeForAdmission } from '../resources/prepare.js';
import type { ResourceDef } from '../resources/types.js';
import type { WriteOptions } from '../storage/objects.js';
import { clone, type JsonObject } from '../util/json.js';
import type { AdmissionChain } from './chain.js';
import { admissionAttributes } from './request.js';

/** The request a write comes from. */
export interface AdmittedRequest {
  resource: ResourceDef;
  subresource: string | undefined;
  namespace: string | undefined;
  name: string | undefined;
  user: User;
}

const OPTIONS_KIND = { create: 'CreateOptions', update: 'UpdateOptions', patch: 'PatchOptions' } as const;

/**
 * Admission around a create or an update, in kube-apiserver's order: the body decoded and defaulted,
 * mutating webhooks, then the write validated (a dry run: `wouldStore`), policies and validating
 * webhooks on what would be stored. Returns the body to write: the webhooks' patches applied.
 */
export async function admitWrite(
  admission: AdmissionChain | undefined,
  request: AdmittedRequest & { verb: keyof typeof OPTIONS_KIND; old: JsonObject | undefined },
  body: unknown,
  options: WriteOptions,
  wouldStore: (object: JsonObject) => JsonObject,
): Promise<unknown> {
  if (!admission?.active) return body;
  const incoming = decodeForAdmission(request.resource, body, options);
  const attributes = admissionAttributes({
    ...request,
    operation: request.old ? 'UPDATE' : 'CREATE',
    object: incoming,
    oldObject: request.old,
    options: {
      kind: OPTIONS_KIND[request.verb],
      apiVersion: 'meta.k8s.io/v1',
      ...(options.fieldManager ? { fieldManager: options.fieldManager } : {}),
    },
    dryRun: options.dryRun,
  });
  const mutated = (await admission.mutate(attributes, options.warnings)) ?? incoming;
  await admission.validate({ ...attributes, object: wouldStore(clone(mutated)) }, options.warnings);
  return mutated;
}

/** Admission of a delete: webhooks and policies see the stored object as oldObject and the DeleteOptions. */
export async function admitDelete(
  admission: AdmissionChain | undefined,
  request: AdmittedRequest,
  old: JsonObject,
  deleteOptions: JsonObject,
  dryRun: boolean,
  warnings: string[],
): Promise<void> {
  if (!admission?.active) return;
  const attributes = admissionAttributes({
    ...request,
    operation: 'DELETE',
    object: undefined,
    oldObject: old,
    options: { kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1', ...deleteOptions },
    dryRun,
  });
  await admission.mutate(attributes, warnings);
  await admission.validate(attributes, warnings);
}
