import { forbidden } from '../api/status.js';
import { generatedSuffix } from '../resources/prepare.js';
import { countOf, objectCountName, resourceQuotas, statusList } from '../resources/builtins/quota.js';
import type { ResourceDef } from '../resources/types.js';
import type { Objects } from '../storage/objects.js';
import { objectAt, type JsonObject, text } from '../util/json.js';

/**
 * kube-apiserver's ResourceQuota admission for object counts, last in the chain: a create in a
 * namespace is checked against each quota whose status.hard limits its resource (a quota the
 * controller has not synced yet limits nothing), and charged to them at once (not on a dry run).
 */
export function admitQuota(
  objects: Objects,
  resource: ResourceDef,
  namespace: string | undefined,
  object: JsonObject,
  dryRun: boolean,
): void {
  if (!resource.namespaced || namespace === undefined) return;
  const counted = objectCountName(resource);
  const charged: JsonObject[] = [];
  for (const [, quota] of objects.store.list(resourceQuotas.storageKey, namespace)) {
    const hard = countOf(statusList(quota, 'hard')?.[counted]);
    if (hard === undefined) continue;
    const quotaName = text(objectAt(quota, 'metadata')?.name);
    const used = countOf(statusList(quota, 'used')?.[counted]);
    if (used === undefined)
      throw refusal(resource, object, `status unknown for quota: ${quotaName}, resources: ${counted}`);
    if (used + 1 > hard) {
      throw refusal(
        resource,
        object,
        `exceeded quota: ${quotaName}, requested: ${counted}=1, used: ${counted}=${used}, limited: ${counted}=${hard}`,
      );
    }
    const status = objectAt(quota, 'status')!;
    charged.push({
      ...quota,
      status: { ...status, used: { ...objectAt(status, 'used'), [counted]: String(used + 1) } },
    });
  }
  if (!dryRun) for (const quota of charged) objects.settle(resourceQuotas, quota, 'status');
}

/** As admission.NewForbidden: the object by its name (kube-apiserver has made one from generateName by then). */
function refusal(resource: ResourceDef, object: JsonObject, why: string) {
  const metadata = objectAt(object, 'metadata');
  const generated = metadata?.generateName ? `${text(metadata.generateName)}${generatedSuffix()}` : 'Unknown';
  return forbidden(resource, text(metadata?.name) || generated, why);
}
