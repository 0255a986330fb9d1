import type { WebhookAdmission } from './dispatch.js';
import type { PolicyAdmission } from './policies/dispatch.js';
import type { AdmissionAttributes } from './request.js';
import type { JsonObject } from '../util/json.js';

/**
 * kube-apiserver's admission chain as far as the emulator plays it: mutating webhooks, then (on the
 * object that would be stored) ValidatingAdmissionPolicies, then validating webhooks; the first
 * refusal ends it.
 */
export class AdmissionChain {
  constructor(
    readonly webhooks: WebhookAdmission,
    readonly policies: PolicyAdmission,
  ) {}

  /** Whether anything could act on a write (else writes skip admission entirely). */
  get active(): boolean {
    return this.webhooks.active || this.policies.active;
  }

  mutate(attributes: AdmissionAttributes, warnings: string[]): Promise<JsonObject | undefined> {
    return this.webhooks.mutate(attributes, warnings);
  }

  async validate(attributes: AdmissionAttributes, warnings: string[]): Promise<void> {
    this.policies.validate(attributes, warnings);
    await this.webhooks.validate(attributes, warnings);
  }
}
