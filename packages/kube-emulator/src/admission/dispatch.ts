import { ApiError, badRequest, forbidden } from '../api/status.js';
import type { RbacAuthorizer } from '../auth/rbac.js';
import { applyJsonPatch } from '../patch/json-patch.js';
import { admissionResources } from '../resources/builtins/admission.js';
import type { ResourceDef } from '../resources/types.js';
import type { Store } from '../storage/store.js';
import { arrayAt, clone, deepEqual, isObject, objectAt, text, type Json, type JsonObject } from '../util/json.js';
import { postReview, webhookUrl, WebhookCallError } from './call.js';
import { webhookMatches } from './match.js';
import { inputsOf } from './policies/activation.js';
import { compileConditions, type NamedExpression } from './policies/compile.js';
import { conditionsHold } from './policies/evaluate.js';
import { admissionReview, type AdmissionAttributes } from './request.js';

const [VALIDATING, MUTATING] = admissionResources as [ResourceDef, ResourceDef];

/** The kinds whose writes never reach a webhook, so that a broken webhook can always be removed. */
const EXEMPT = new Set(admissionResources);

/** A webhook refused the request: its Status, worded as kube-apiserver's webhookerrors.ToStatusErr. */
function denied(name: string, status: JsonObject | undefined, warnings: string[]): ApiError {
  const deniedBy = `admission webhook "${name}" denied the request`;
  const message = text(status?.message ?? '');
  const reason = text(status?.reason ?? '');
  const code = Number(status?.code ?? 0);
  const details = objectAt(status ?? {}, 'details');
  return new ApiError(
    code < 400 ? 400 : code,
    reason,
    message ? `${deniedBy}: ${message}` : reason ? `${deniedBy}: ${reason}` : `${deniedBy} without explanation`,
    details,
    warnings,
  );
}

const internalError = (message: string, warnings: string[]): ApiError =>
  new ApiError(500, 'InternalError', `Internal error occurred: ${message}`, { causes: [{ message }] }, warnings);

interface Webhook {
  configuration: string;
  spec: JsonObject;
}

/**
 * kube-apiserver's MutatingAdmissionWebhook and ValidatingAdmissionWebhook plugins: the webhooks of
 * the stored configurations (by configuration name, then in order) are sent an AdmissionReview v1 for
 * each write they match (rules, selectors, then matchConditions); mutating ones first, their JSON patches applied one after the other, then
 * validating ones on the object that would be stored.
 */
export class WebhookAdmission {
  /** Each webhook's compiled matchConditions, for as long as its configuration object lives. */
  private readonly conditions = new WeakMap<JsonObject, NamedExpression[]>();

  constructor(
    private readonly store: Store,
    /** RBAC, which the `authorizer` of matchConditions asks. */
    private readonly rbac: RbacAuthorizer | undefined,
  ) {}

  /** Whether any webhook configuration is stored (else writes skip admission entirely). */
  get active(): boolean {
    return this.store.count(VALIDATING.storageKey) + this.store.count(MUTATING.storageKey) > 0;
  }

  private webhooks(storageKey: string, attributes: AdmissionAttributes): Webhook[] {
    if (EXEMPT.has(attributes.resource)) return [];
    const found: Webhook[] = [];
    const configurations = [...this.store.list(storageKey)].map(([, object]) => object);
    configurations.sort((a, b) =>
      text(objectAt(a, 'metadata')?.name).localeCompare(text(objectAt(b, 'metadata')?.name)),
    );
    for (const configuration of configurations) {
      for (const spec of (arrayAt(configuration, 'webhooks') ?? []).filter(isObject)) {
        if (webhookMatches(spec, attributes, this.store) && this.conditionsHold(spec, attributes)) {
          found.push({ configuration: text(objectAt(configuration, 'metadata')?.name), spec });
        }
      }
    }
    return found;
  }

  /**
   * A webhook's matchConditions, last of what decides whether it is called: a false one skips it; an
   * error refuses the request (403) under failurePolicy Fail and skips the webhook under Ignore.
   */
  private conditionsHold(spec: JsonObject, attributes: AdmissionAttributes): boolean {
    const declared = (arrayAt(spec, 'matchConditions') ?? []).filter(isObject);
    if (declared.length === 0) return true;
    let conditions = this.conditions.get(spec);
    if (!conditions) {
      conditions = compileConditions(declared, false, 'matchConditions', []);
      this.conditions.set(spec, conditions);
    }
    const held = conditionsHold(
      conditions,
      inputsOf(attributes, this.store, this.rbac),
      spec.failurePolicy !== 'Ignore',
    );
    if (typeof held === 'boolean') return held;
    throw forbidden(attributes.resource, attributes.name, held.message);
  }

  /** Calls one webhook; undefined when it failed and its failurePolicy is Ignore. */
  private async call(
    webhook: Webhook,
    attributes: AdmissionAttributes,
    object: JsonObject | undefined,
    warnings: string[],
  ): Promise<JsonObject | undefined> {
    const { spec } = webhook;
    const name = text(spec.name);
    const sideEffects = text(spec.sideEffects ?? 'Unknown');
    if (attributes.dryRun && sideEffects !== 'None' && sideEffects !== 'NoneOnDryRun') {
      throw badRequest(`admission webhook "${name}" does not support dry run`);
    }
    const timeoutSeconds = Number(spec.timeoutSeconds ?? 10);
    const clientConfig = objectAt(spec, 'clientConfig') ?? {};
    const review = admissionReview(attributes, object);
    const uid = text(objectAt(review, 'request')?.uid);
    try {
      const url = webhookUrl(clientConfig, timeoutSeconds);
      const caBundle = typeof clientConfig.caBundle === 'string' ? clientConfig.caBundle : undefined;
      const answer = await postReview(url, caBundle, timeoutSeconds, review);
      const response = objectAt(answer, 'response');
      if (!response) throw new WebhookCallError('received invalid webhook response: webhook response was absent');
      if (response.uid !== uid) {
        throw new WebhookCallError(
          `received invalid webhook response: expected response.uid="${uid}", got "${text(response.uid)}"`,
        );
      }
      warnings.push(...(arrayAt(response, 'warnings') ?? []).map(String));
      return response;
    } catch (error) {
      if (!(error instanceof WebhookCallError)) throw error;
      if (spec.failurePolicy === 'Ignore') return undefined;
      throw internalError(`failed calling webhook "${name}": ${error.message}`, warnings);
    }
  }

  /**
   * Runs the mutating webhooks and returns the object they leave. reinvocationPolicy IfNeeded: a
   * webhook is called once more when a later one changed the object.
   */
  async mutate(attributes: AdmissionAttributes, warnings: string[]): Promise<JsonObject | undefined> {
    const webhooks = this.webhooks(MUTATING.storageKey, attributes);
    let object = attributes.object && clone(attributes.object);
    const changedAfter = new Map<Webhook, boolean>();
    const run = async (webhook: Webhook) => {
      const response = await this.call(webhook, { ...attributes, object }, object, warnings);
      if (!response) return;
      if (response.allowed !== true) throw denied(text(webhook.spec.name), objectAt(response, 'status'), warnings);
      if (typeof response.patch !== 'string' || object === undefined) return;
      if (response.patchType !== 'JSONPatch') {
        throw internalError(
          `received invalid webhook response: unsupported patch type "${text(response.patchType)}"`,
          warnings,
        );
      }
      const before = object;
      const operations = JSON.parse(Buffer.from(response.patch, 'base64').toString('utf8')) as unknown;
      const patched = applyJsonPatch(object, Array.isArray(operations) ? (operations as Json[]) : []);
      if (!isObject(patched)) throw internalError('the webhook patch did not leave an object', warnings);
      object = patched;
      if (!deepEqual(before, object)) for (const earlier of changedAfter.keys()) changedAfter.set(earlier, true);
    };
    for (const webhook of webhooks) {
      await run(webhook);
      if (webhook.spec.reinvocationPolicy === 'IfNeeded') changedAfter.set(webhook, false);
    }
    for (const [webhook, changed] of changedAfter) if (changed) await run(webhook);
    return object;
  }

  /** Runs the validating webhooks (at once, as kube-apiserver does); the first refusal in order wins. */
  async validate(attributes: AdmissionAttributes, warnings: string[]): Promise<void> {
    const webhooks = this.webhooks(VALIDATING.storageKey, attributes);
    const outcomes = await Promise.allSettled(
      webhooks.map(async (webhook) => {
        const response = await this.call(webhook, attributes, attributes.object, warnings);
        if (response && response.allowed !== true) {
          throw denied(text(webhook.spec.name), objectAt(response, 'status'), warnings);
        }
      }),
    );
    const refused = outcomes.find((outcome) => outcome.status === 'rejected');
    if (refused) throw refused.reason;
  }
}
