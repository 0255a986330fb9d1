import type { ApiError } from '../api/status.js';
import type { PolicyAdmission } from '../admission/policies/dispatch.js';
import type { AdmissionAttributes, Operation } from '../admission/request.js';
import { SERVICE_ACCOUNT_PREFIX, type User } from '../auth/tokens.js';
import {
  validatingAdmissionPolicies,
  validatingAdmissionPolicyBindings,
} from '../resources/builtins/admission-policies.js';
import { namespaces } from '../resources/builtins/core.js';
import type { ResourceDef } from '../resources/types.js';
import type { StoreEvent } from '../storage/store.js';
import type { JsonObject } from '../util/json.js';
import { later } from './background.js';

/** A write of a controller, as admission sees it. */
export interface ControllerWrite {
  operation: Operation;
  resource: ResourceDef;
  subresource?: string;
  namespace: string | undefined;
  /** Empty for the deletes of a deletecollection (the namespace controller's). */
  name: string;
  object?: JsonObject;
  oldObject?: JsonObject;
  /** The DeleteOptions' propagation policy of a delete. */
  propagationPolicy?: string;
}

/** kube-controller-manager's controllers act as their own service accounts in kube-system. */
const controllerUser = (controller: string): User => ({
  name: `${SERVICE_ACCOUNT_PREFIX}kube-system:${controller}`,
  uid: '',
  groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'],
});

const OPTIONS: Record<Operation, string> = {
  CREATE: 'CreateOptions',
  UPDATE: 'UpdateOptions',
  DELETE: 'DeleteOptions',
};

/**
 * The writes of the emulator's controllers (garbage collector, namespace controller), admitted as
 * kube-apiserver admits kube-controller-manager's: by the ValidatingAdmissionPolicies, as the
 * controller's service account (webhooks are not called for them). A refused write is tried again
 * when a policy or binding changes, as the real controllers retry theirs.
 */
export class ControllerAdmission {
  private waiting: (() => void)[] = [];

  constructor(private readonly policies: PolicyAdmission) {}

  /** Why a policy refuses the write, if one does. */
  refusal(controller: string, write: ControllerWrite): ApiError | undefined {
    const { propagationPolicy, ...request } = write;
    const attributes: AdmissionAttributes = {
      ...request,
      subresource: write.subresource,
      namespace: write.resource === namespaces ? write.name : write.namespace,
      object: write.object,
      oldObject: write.oldObject,
      options: {
        kind: OPTIONS[write.operation],
        apiVersion: 'meta.k8s.io/v1',
        ...(propagationPolicy ? { propagationPolicy } : {}),
      },
      user: controllerUser(controller),
      dryRun: false,
    };
    return this.policies.refusal(attributes, []);
  }

  /** Runs `work` again once policies or bindings change. */
  retryLater(work: () => void): void {
    this.waiting.push(work);
  }

  observe(event: StoreEvent): void {
    const policies = [validatingAdmissionPolicies.storageKey, validatingAdmissionPolicyBindings.storageKey];
    if (!policies.includes(event.storageKey) || this.waiting.length === 0) return;
    const waiting = this.waiting;
    this.waiting = [];
    for (const work of waiting) later(work);
  }
}
