import type { AWSCluster, AWSTagPolicy } from '@keymaster/api';
import type { IdentityObject, IdentityStore } from '@keymaster/identity';
import type { Logger } from '../logging.js';
import type { Privileged } from './privileged.js';

/** The namespace label that names a namespace's tenant, and the groups whose new namespaces get one. */
export interface Tenancy {
  label: string;
  /** Group -> tenant: a namespace created by a member of the group is labelled with its tenant. */
  groupTenants: ReadonlyMap<string, string>;
}

/** What the webhooks read: the controller's informer caches (no API call per request) and the flags. */
export interface WebhookContext {
  store: IdentityStore;
  clusters: () => readonly AWSCluster[];
  identities: () => readonly IdentityObject[];
  /** Every AWSTagPolicy: the global one (`default`) and those that select clusters. */
  tagPolicies: () => readonly AWSTagPolicy[];
  controllerNamespace: string;
  privileged: Privileged;
  tenancy: Tenancy;
  logger: Logger;
}
