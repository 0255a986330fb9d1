import { setupAdoptionController } from './adoption/setup.js';
import { setupAWSClusterController } from './awscluster/setup.js';
import { ControllerContext, type KeymasterOptions } from './context.js';
import { setupCredentialsRequestController } from './credentials/setup.js';
import { setupIdentityControllers } from './awsclusteridentity/setup.js';
import { describeKubeError, isStaleRead } from './kube/errors.js';
import { Manager } from './manager.js';
import { keyOf } from './runtime/controller.js';

/** Keymaster's controllers on one manager, and what they share. */
export interface Keymaster {
  manager: Manager;
  context: ControllerContext;
  credentialRequests: ReturnType<typeof setupCredentialsRequestController>;
}

/** Makes the manager and sets up every controller on it: a new controller is one more line here. */
export function createKeymaster(options: KeymasterOptions): Keymaster {
  const { logger, metrics } = options;
  const manager = new Manager({
    kubeConfig: options.kubeConfig,
    ...(options.leaderElection ? { leaderElection: options.leaderElection } : {}),
    ...(options.shards ? { shards: options.shards } : {}),
    ...(options.onLeadershipLost ? { onLeadershipLost: options.onLeadershipLost } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
    metrics: metrics.runtime,
    shardObserver: metrics.shardObserver(),
    logger,
    controllers: {
      isExpected: isStaleRead,
      onError: (request, error) => {
        // A conflict or a 404 only means the cache was behind: the retry reads the newer object (or none).
        if (isStaleRead(error))
          logger.debug('stale read; retrying', { key: keyOf(request), error: describeKubeError(error) });
        else logger.error('reconcile failed', { key: keyOf(request), error: describeKubeError(error) });
      },
    },
  });
  const context = new ControllerContext(manager, options);
  setupAWSClusterController(context);
  setupIdentityControllers(context);
  const credentialRequests = setupCredentialsRequestController(context);
  if (context.adoption) setupAdoptionController(context, context.adoption);
  // Last: the stop steps above (the status after tag work) still resolve.
  manager.onStop(() => {
    context.resolver.clear();
    return Promise.resolve();
  });
  return { manager, context, credentialRequests };
}
