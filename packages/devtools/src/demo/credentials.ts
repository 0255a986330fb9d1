import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { GROUP, VERSION, type AWSCredentialsRequest, type Condition } from '@keymaster/api';
import { findCondition } from '@keymaster/reconciler';
import type { Emulators } from '@keymaster/testenv';

/** What the demo shows of one AWSCredentialsRequest and its Secret: names, keys and times, never a value. */
export interface RequestRow {
  namespace: string;
  name: string;
  secret: string;
  format: string;
  mode: string;
  /** What the statements allow, e.g. tag:GetResources. */
  allows: string[];
  principal: string | undefined;
  expiration: string | undefined;
  nextRenewal: string | undefined;
  /** The keys of the Secret as written (absent until it exists). */
  secretKeys: string[] | undefined;
  ready: Pick<Condition, 'status' | 'reason' | 'message'> | undefined;
  current: boolean;
}

export async function listRequests(emulators: Emulators): Promise<RequestRow[]> {
  const { items } = (await emulators.kubeConfig.makeApiClient(CustomObjectsApi).listClusterCustomObject({
    group: GROUP,
    version: VERSION,
    plural: 'awscredentialsrequests',
  })) as { items: AWSCredentialsRequest[] };
  const core = emulators.kubeConfig.makeApiClient(CoreV1Api);
  const rows = await Promise.all(
    items.map(async ({ metadata, spec, status }): Promise<RequestRow> => {
      const namespace = metadata.namespace ?? '';
      const secret = await core.readNamespacedSecret({ namespace, name: spec.secretRef.name }).catch(() => undefined);
      const ready = findCondition(status?.conditions, 'Ready');
      return {
        namespace,
        name: metadata.name ?? '',
        secret: spec.secretRef.name,
        format: spec.format ?? 'Environment',
        mode: spec.mode ?? 'Session',
        allows: (spec.statements ?? []).filter(({ effect }) => effect === 'Allow').flatMap(({ actions }) => actions),
        principal: status?.principalARN,
        expiration: status?.expiration,
        nextRenewal: status?.nextRenewalTime,
        secretKeys: secret && Object.keys(secret.data ?? {}).sort(),
        ready: ready && { status: ready.status, reason: ready.reason, message: ready.message },
        current: status?.observedGeneration !== undefined && status.observedGeneration === metadata.generation,
      };
    }),
  );
  return rows.sort((a, b) => `${a.namespace}/${a.name}`.localeCompare(`${b.namespace}/${b.name}`));
}

/** Settled: served (Ready) or refused for a reason someone must fix; not still on its way. */
export const requestSettled = (row: RequestRow): boolean =>
  row.current && row.ready !== undefined && row.ready.status !== 'Unknown';

/** The requests and what their Secrets hold, for a person: names, keys and times only. */
export function renderRequests(rows: readonly RequestRow[]): string[] {
  if (rows.length === 0) return [];
  const served = rows.filter((row) => row.ready?.status === 'True');
  return [
    `Credentials: ${served.length} of ${rows.length} AWSCredentialsRequest${rows.length === 1 ? '' : 's'} served`,
    ...rows.map((row) => {
      const where = `  ${row.namespace}/${row.name} -> Secret ${row.secret}`;
      if (row.ready?.status !== 'True')
        return `${where}: ${row.ready?.reason ?? 'pending'}: ${row.ready?.message ?? ''}`;
      const what =
        row.mode === 'WebIdentity'
          ? 'an AWS config for pods with a ServiceAccount token (no secret material)'
          : `a session of ${row.principal ?? '?'} that may only ${row.allows.join(', ') || 'what its policy ARNs allow'}, until ${row.expiration ?? '?'} (renewed at ${row.nextRenewal ?? '?'})`;
      return `${where} (${row.format}: ${(row.secretKeys ?? []).join(', ')}): ${what}`;
    }),
  ];
}
