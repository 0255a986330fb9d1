import type { AWSCluster, AWSTagPolicy } from '@keymaster/api';
import type { IdentityObject, IdentityStore } from '@keymaster/identity';
import type { Logger } from '../logging.js';
import type { Privileged } from './privileged.js';
import type { Tenancy } from './tenancy.js';

/** What the webhooks read: the controller's informer caches (no API call per request) and the flags. */
export interface WebhookContext {
  store: IdentityStore;
  clusters: () => readonly AWSCluster[];
  identities: () => readonly IdentityObject[];
  /** The AWSTagPolicy `default`, when there is one: the global tags of every cluster. */
  tagPolicy: () => AWSTagPolicy | undefined;
  controllerNamespace: string;
  privileged: Privileged;
  tenancy: Tenancy;
  logger: Logger;
}
