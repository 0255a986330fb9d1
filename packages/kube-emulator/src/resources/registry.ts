import {
  admissionResources,
  configMaps,
  coreEvents,
  customResourceDefinitions,
  deployments,
  eventsV1,
  leases,
  namespaces,
  rbacResources,
  secrets,
  selfSubjectReviews,
  serviceAccounts,
  services,
  tokenReviews,
  validatingAdmissionPolicies,
  validatingAdmissionPolicyBindings,
} from './builtins/index.js';
import { apiServices } from './builtins/apiregistration.js';
import { selfSubjectAccessReviews, subjectAccessReviews } from './builtins/authorization.js';
import { resourceQuotas } from './builtins/quota.js';
import type { ResourceDef } from './types.js';

export const BUILTINS: ResourceDef[] = [
  namespaces,
  secrets,
  configMaps,
  serviceAccounts,
  services,
  coreEvents,
  eventsV1,
  selfSubjectReviews,
  tokenReviews,
  selfSubjectAccessReviews,
  subjectAccessReviews,
  deployments,
  leases,
  resourceQuotas,
  ...rbacResources,
  customResourceDefinitions,
  apiServices,
  ...admissionResources,
  validatingAdmissionPolicies,
  validatingAdmissionPolicyBindings,
];

const keyOf = (group: string, version: string, plural: string): string => `${group}/${version}/${plural}`;

/** Whether kube-apiserver itself serves this group version (the core group's v1, apps/v1, ...). */
export const isBuiltinGroupVersion = (group: string, version: string): boolean =>
  BUILTINS.some((resource) => resource.group === group && resource.version === version);

/** Every resource the server serves, built-in and from CRDs. */
export class ResourceRegistry {
  private readonly byPath = new Map<string, ResourceDef>();
  private generationCounter = 0;

  constructor() {
    for (const resource of BUILTINS)
      this.byPath.set(keyOf(resource.group, resource.version, resource.plural), resource);
  }

  /** Bumped on every change: a cheap key for caches of documents derived from the registry. */
  get generation(): number {
    return this.generationCounter;
  }

  find(group: string, version: string, plural: string): ResourceDef | undefined {
    return this.byPath.get(keyOf(group, version, plural));
  }

  all(): ResourceDef[] {
    return [...this.byPath.values()];
  }

  /** Every served version of one stored resource (e.g. both Event APIs), for watches across versions. */
  sharing(storageKey: string): ResourceDef[] {
    return this.all().filter((resource) => resource.storageKey === storageKey);
  }

  /** Serves a CRD's resources, replacing what it served before. */
  serveCrd(crdName: string, resources: ResourceDef[]): void {
    for (const [key, resource] of this.byPath) if (resource.crdName === crdName) this.byPath.delete(key);
    for (const resource of resources)
      this.byPath.set(keyOf(resource.group, resource.version, resource.plural), resource);
    this.generationCounter++;
  }

  dropCrd(crdName: string): void {
    this.serveCrd(crdName, []);
  }
}
