import { createInspectContext, type InspectContext } from '../inspect/context.js';
import type { InspectFlags } from './inspect-flags.js';
import { checkedKubeConfig } from './startup.js';

/** What `keymaster plan` and `keymaster explain` act with: the controller's set-up, from their flags. */
export async function inspectContextOf(flags: InspectFlags): Promise<InspectContext> {
  const kubeConfig = await checkedKubeConfig(flags);
  return createInspectContext({
    kubeConfig,
    controllerNamespace: flags.controllerNamespace,
    stsRegion: flags.stsRegion,
    layerGracePeriodMs: flags.tagLayerGracePeriodMs,
    tenantLabel: flags.tenantLabel,
  });
}
