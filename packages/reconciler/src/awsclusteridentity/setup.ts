import { IDENTITY_KINDS, type AWSAccountBinding, type IdentityKind } from '@keymaster/api';
import {
  checkControllerCredentials,
  SOURCE_DESCRIPTIONS,
  type ControllerCredentialsCheck,
  type IdentityObject,
} from '@keymaster/identity';
import { identityRequest, type IdentityAt } from './identity-at.js';
import type { V1Secret } from '@kubernetes/client-node';
import type { ControllerContext } from '../context.js';
import { controllerFor, requestFor } from '../runtime/builder.js';
import { specOrMetadataChanged } from '../runtime/predicates.js';
import { watchChains } from './chain-watch.js';
import { CLAIMED_ACCOUNT } from './legacy-account-claim.js';
import { IdentityReconciler } from './reconciler.js';

/**
 * A controller per identity kind (cluster-scoped: shard 0's holder's), the chain index they count
 * users with, and the start-up check of the controller's own credentials.
 */
export function setupIdentityControllers(context: ControllerContext): void {
  watchChains(context);
  const credentials = checkCredentialsAtStart(context);
  for (const kind of IDENTITY_KINDS) setupIdentityController(context, kind, credentials);
}

function setupIdentityController(
  context: ControllerContext,
  kind: IdentityKind,
  controllerCredentials: () => ControllerCredentialsCheck | undefined,
): void {
  const { manager, caches, options } = context;
  const reconciler = new IdentityReconciler(kind, {
    caches,
    chains: context.chains,
    writer: context.writer,
    events: context.events,
    sightings: context.sightings,
    deletions: context.deletions,
    controllerNamespace: options.controllerNamespace,
    controllerCredentials,
    now: context.now,
    logger: options.logger,
    tenantLabel: context.tenantLabel,
  });
  const ofKind = (identities: readonly IdentityObject[]) =>
    identities.filter((identity) => identity.kind === kind).map(requestFor);
  controllerFor(manager, kind.toLowerCase(), caches.identities[kind])
    .withPredicate(specOrMetadataChanged)
    .watches<IdentityAt>(context.identityChanges, (identity) =>
      identity.kind === kind ? [identityRequest(identity)] : [],
    )
    // A static identity's Secret (keys, a role's externalID) changed.
    .watches<V1Secret>(caches.secrets, (secret) => ofKind(caches.identitiesUsingSecret(secret.metadata?.name ?? '')))
    // Who may act in an account: claims of it are converted.
    .watches<AWSAccountBinding>(
      caches.accountBindings,
      (binding) =>
        caches.identities[kind]
          .list()
          .filter((identity) => identity.metadata.annotations?.[CLAIMED_ACCOUNT] === binding.metadata.name)
          .map(requestFor),
      specOrMetadataChanged,
    )
    .complete(reconciler.reconcile);
}

/**
 * Which source of the SDK's default chain gives the controller its own credentials, or none: logged,
 * exported (keymaster_controller_credentials) and shown on AWSClusterControllerIdentity/default.
 * Checked at start, not waited for; waited for at stop.
 */
function checkCredentialsAtStart(context: ControllerContext): () => ControllerCredentialsCheck | undefined {
  const { manager, options } = context;
  const { logger, metrics } = options;
  let check: ControllerCredentialsCheck | undefined;
  let checked: Promise<void> | undefined;
  manager.onStart(() => {
    checked = checkControllerCredentials(context.controllerCredentials, !options.controllerCredentials).then(
      (result) => {
        check = result;
        metrics.setControllerCredentials(result.source);
        if (result.source === 'none')
          logger.warn('controller credentials: none found', {
            source: result.source,
            error: result.error,
            hint: "Clusters whose identity chain starts from AWSClusterControllerIdentity/default fail until the controller's pod has credentials: IRSA, EKS Pod Identity, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY",
          });
        else logger.info('controller credentials', { source: result.source, from: SOURCE_DESCRIPTIONS[result.source] });
        context.identityChanges.send({ kind: 'AWSClusterControllerIdentity', name: 'default' });
      },
    );
    return Promise.resolve();
  });
  manager.onStop(async () => {
    await checked;
  });
  return () => check;
}
