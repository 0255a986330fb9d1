import { createInspectContext, type InspectContext } from '../inspect/context.js';
import type { InspectFlags } from './inspect-flags.js';
import { loadKubeConfig } from './run.js';

/** What `keymaster plan` and `keymaster explain` act with: the controller's set-up, from their flags. */
export const inspectContextOf = (flags: InspectFlags): InspectContext =>
  createInspectContext({
    kubeConfig: loadKubeConfig(flags.kubeconfig),
    controllerNamespace: flags.namespace,
    stsRegion: flags.stsRegion,
    layerGracePeriodMs: flags.tagLayerGracePeriodMs,
  });
