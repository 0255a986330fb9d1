import type { AWSCluster } from '@keymaster/api';
import type { IdentityObject, IdentityStore } from '@keymaster/identity';
import type { Logger } from '../logging.js';
import type { Privileged } from './privileged.js';
import type { Tenancy } from './tenancy.js';

/** What the webhooks read: the controller's informer caches (no API call per request) and the flags. */
export interface WebhookContext {
  store: IdentityStore;
  clusters: () => readonly AWSCluster[];
  identities: () => readonly IdentityObject[];
  controllerNamespace: string;
  privileged: Privileged;
  tenancy: Tenancy;
  logger: Logger;
}
