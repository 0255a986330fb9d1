import type { Server } from 'node:http';
import { RateLimiters } from '@keymaster/tagging';
import type { AwsCredentialIdentityProvider } from '@smithy/types';
import { createTagSync } from '../awscluster/tags.js';
import { logApiWarnings } from '../kube/api-warnings.js';
import { createControllerLogger, type Logger } from '../logging.js';
import { createKeymaster, type Keymaster } from '../controllers.js';
import type { Manager } from '../manager.js';
import type { Clock } from '../runtime/clock.js';
import { KeymasterMetrics } from '../metrics.js';
import { serveMetrics, serveProbes } from '../servers.js';
import { cachedAccessReview, subjectAccessReview } from '../inspect-api/access-review.js';
import { frontProxyReader } from '../inspect-api/front-proxy.js';
import { inspectApiHandler } from '../inspect-api/handler.js';
import { controllerInspector } from '../inspect-api/inspector.js';
import { startWebhooks } from '../webhooks/start.js';
import { KEYMASTER_VERSION } from '../version.js';
import { leaderIdentity, type RunFlags } from './flags.js';
import { checkApiServer, listenFailure, loadKubeConfig } from './startup.js';

export interface RunningController {
  manager: Manager;
  /** The controllers' shared parts (caches, writer) and the requests' caches, for in-process callers. */
  keymaster: Keymaster;
  metrics: KeymasterMetrics;
  logger: Logger;
  metricsUrl?: string;
  probesUrl?: string;
  webhooksUrl?: string;
  /** Graceful stop: drain the queues, release the lease, stop the informers, close the servers. */
  stop(): Promise<void>;
}

/** Starts the controller as `keymaster run` does (also used in-process by the demo and the benchmark). */
export interface ControllerOverrides {
  onLeadershipLost?: () => void;
  logger?: Logger;
  /** In-process callers (demo, tests, benchmark) may pass these instead of the AWS environment. */
  aws?: { endpoint?: string; credentials?: AwsCredentialIdentityProvider };
  /** Tests only: time as the controller sees it (e.g. the aws-emulator's clock, to see credentials renewed). */
  clock?: Clock;
}

export async function startController(flags: RunFlags, options: ControllerOverrides = {}): Promise<RunningController> {
  const logger = options.logger ?? createControllerLogger(flags.logLevel, flags.logFormat);
  logger.info('keymaster', { version: KEYMASTER_VERSION, node: process.version });
  const metrics = new KeymasterMetrics();
  // One registry for the whole process: every shard's clusters of an account share its budgets, and the
  // inspect API's plans wait their turn in them too.
  const limiters = new RateLimiters({ budgets: flags.awsTaggingBudgets });
  metrics.watchAwsBudgets(() => limiters.stats());
  const kubeConfig = loadKubeConfig(flags.kubeconfig, logApiWarnings(logger));
  await checkApiServer(kubeConfig);
  const endpoint = options.aws?.endpoint ?? process.env['AWS_ENDPOINT_URL'];
  const keymaster = createKeymaster({
    kubeConfig,
    controllerNamespace: flags.namespace,
    tenantLabel: flags.tenancy.label,
    ...(flags.watchNamespace ? { watchNamespace: flags.watchNamespace } : {}),
    ...(flags.watchFilter ? { watchFilter: flags.watchFilter } : {}),
    capa: flags.capa,
    syncPeriodMs: flags.syncPeriodMs,
    maxConcurrentReconciles: flags.maxConcurrentReconciles,
    perNamespace: flags.perNamespace,
    autoControllerIdentity: flags.featureGates.AutoControllerIdentityCreator,
    adoptClusterAPI: flags.adoptClusterAPI,
    ...(flags.leaderElect
      ? {
          leaderElection: {
            namespace: flags.leaderElectionNamespace,
            name: flags.leaderElectionId,
            identity: leaderIdentity(),
            leaseDurationMs: flags.leaseDurationMs,
            renewDeadlineMs: flags.renewDeadlineMs,
            retryPeriodMs: flags.retryPeriodMs,
          },
        }
      : {}),
    ...(flags.shards > 0
      ? {
          shards: {
            count: flags.shards,
            namespace: flags.leaderElectionNamespace,
            prefix: flags.leaderElectionId,
            identity: leaderIdentity(),
            leaseDurationMs: flags.leaseDurationMs,
            renewDeadlineMs: flags.renewDeadlineMs,
            retryPeriodMs: flags.retryPeriodMs,
          },
        }
      : {}),
    // The AWS endpoint and the controller's own credentials come from the standard AWS environment.
    aws: { stsRegion: flags.stsRegion, ...(endpoint ? { endpoint } : {}) },
    maxCredentialSetsPerNamespace: flags.maxCredentialSetsPerNamespace,
    stsRatePerNamespace: flags.stsRatePerNamespace,
    minRenewalIntervalMs: flags.minRenewalIntervalMs,
    ...(options.aws?.credentials ? { controllerCredentials: options.aws.credentials } : {}),
    syncTags: createTagSync({
      limiters,
      layerGracePeriodMs: flags.tagLayerGracePeriodMs,
    }),
    metrics,
    logger,
    ...(options.onLeadershipLost ? { onLeadershipLost: options.onLeadershipLost } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
  });
  const { manager } = keymaster;
  // What stop() closes: the servers, and for the webhooks their certificate watch too.
  const closers: (() => Promise<unknown>)[] = [];
  const closing = (server: Server) => () => new Promise((resolve) => server.close(resolve));
  const running: RunningController = {
    manager,
    keymaster,
    metrics,
    logger,
    stop: async () => {
      await manager.stop();
      await Promise.all(closers.map((close) => close()));
    },
  };
  if (flags.metricsBindAddress) {
    const address = flags.metricsBindAddress;
    const { url, server } = await serveMetrics(metrics, address).catch((error: unknown) => {
      throw listenFailure('metrics-bind-address', address, error);
    });
    closers.push(closing(server));
    running.metricsUrl = url;
  }
  if (flags.healthProbeBindAddress) {
    const address = flags.healthProbeBindAddress;
    const { url, server } = await serveProbes(() => manager.ready, address).catch((error: unknown) => {
      throw listenFailure('health-probe-bind-address', address, error);
    });
    closers.push(closing(server));
    running.probesUrl = url;
  }
  if (flags.webhookPort !== undefined) {
    const inspector = controllerInspector(keymaster.context, limiters, flags.tagLayerGracePeriodMs);
    const api = inspectApiHandler({
      frontProxy: frontProxyReader(kubeConfig, () => keymaster.context.clock.now()),
      review: cachedAccessReview(subjectAccessReview(kubeConfig), () => keymaster.context.clock.now()),
      inspector,
      logger,
      now: keymaster.context.now,
    });
    const webhooks = await startWebhooks(flags, keymaster.context.caches, kubeConfig, logger, api);
    closers.push(() => webhooks.stop());
    running.webhooksUrl = webhooks.url;
  }
  logger.info('starting', {
    namespace: flags.namespace,
    webhooks: running.webhooksUrl,
    metrics: running.metricsUrl,
    probes: running.probesUrl,
    syncPeriodMs: flags.syncPeriodMs,
    workers: flags.maxConcurrentReconciles,
  });
  await manager.start();
  return running;
}
