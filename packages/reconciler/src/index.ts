// The controller's public face: what the dev tools (the demo, `emulate`, the benchmark) and the e2e
// suites use. Everything else in src/ is private to the package.
export { findCondition } from './awscluster/conditions.js';
export { clusterNameOf } from './awscluster/name-claim.js';
export { commandHelp, parseCommandFlags, portFlag, type FlagSpecs } from './cli/command-flags.js';
export { FlagError, parseRunFlags, RUN_FLAGS, runHelp, type RunFlags } from './cli/flags.js';
export { runKeymaster, type Command } from './cli/keymaster.js';
export { startController, type ControllerOverrides, type RunningController } from './cli/run.js';
export { planClusters } from './inspect/cluster-plan.js';
export { createInspectContext } from './inspect/context.js';
export { explainCluster } from './inspect/explain.js';
export { chainTree, fixLines } from './inspect/explain-output.js';
export { summaryText } from './inspect/plan-output.js';
export { findClusters } from './inspect/targets.js';
export { createControllerLogger, type Logger } from './logging.js';
export { formatDuration, parseDuration } from './runtime/duration.js';
export { KEYMASTER_VERSION } from './version.js';
