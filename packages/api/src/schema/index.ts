import { accountBinding } from './account-binding.js';
import { awsCluster } from './cluster.js';
import { credentialsRequest } from './credentials-request.js';
import { IDENTITY_DEFINITIONS } from './identities.js';
import { clusterLedger } from './ledger.js';
import { tagPolicy } from './tag-policy.js';
import type { KindDefinition } from './kind.js';

/** Every kind of the API, in the order the docs and CRD files list them. */
export const KINDS: readonly KindDefinition[] = [
  awsCluster,
  ...IDENTITY_DEFINITIONS,
  tagPolicy,
  credentialsRequest,
  accountBinding,
  clusterLedger,
];
