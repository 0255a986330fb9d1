import type { Sequence, Step } from '../sequence.js';
import { cluster, configMap, GROUP, PATHS } from './objects.js';

const { clusters, configMaps } = PATHS;
const quotas = '/api/v1/namespaces/{ns}/resourcequotas';
const CLUSTERS = `count/awsclusters.${GROUP}`;
const MAPS = 'count/configmaps';

/** Reads the quota until its status has a usage for each limit, as a client waits for the resourcequota controller. */
const untilCounted = (name: string): Step => ({
  request: `GET ${quotas}/${name}`,
  until: ({ body }) => {
    const used = (body as { status?: { used?: Record<string, string> } }).status?.used ?? {};
    return used[CLUSTERS] !== undefined && used[MAPS] !== undefined;
  },
});

export const quota: Sequence[] = [
  {
    name: 'quota: object counts are enforced once the controller has counted, and past the limit refused',
    area: 'admission',
    steps: [
      { request: `POST ${configMaps}`, body: configMap('before') },
      {
        request: `POST ${quotas}`,
        body: {
          apiVersion: 'v1',
          kind: 'ResourceQuota',
          metadata: { name: 'tenant' },
          spec: { hard: { [CLUSTERS]: 2, [MAPS]: '2' } },
        },
      },
      untilCounted('tenant'),
      { request: `POST ${clusters}`, body: cluster('q1') },
      { request: `POST ${clusters}?dryRun=All`, body: cluster('q2') },
      { request: `POST ${clusters}`, body: cluster('q2') },
      { request: `POST ${clusters}`, body: cluster('q3') },
      { request: `POST ${configMaps}`, body: configMap('after') },
      { request: `POST ${configMaps}`, body: configMap('past') },
      { request: `GET ${quotas}/tenant`, pick: (body) => (body as { status?: unknown }).status },
    ],
  },
];
