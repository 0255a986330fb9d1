import { atomicList, free, integer, keyedList, kindSchema, object, string, stringMap } from '../../schema/builders.js';
import { ageColumn, column, labelPairs, nameColumn } from '../../table/columns.js';
import { arrayAt, isObject, objectAt, stringAt, text, type JsonObject } from '../../util/json.js';
import type { ResourceDef } from '../types.js';
import { defineBuiltin } from './define.js';

const servicePort = object(
  'ServicePort contains information on service port.',
  {
    name: string('The name of this port within the service.'),
    protocol: string('The IP protocol for this port.', { default: 'TCP', enum: ['TCP', 'UDP', 'SCTP'] }),
    appProtocol: string('The application protocol for this port.'),
    port: integer('The port that will be exposed by this service.'),
    targetPort: {
      'x-kubernetes-int-or-string': true,
      description: 'Number or name of the port to access on the pods targeted by the service.',
    },
    nodePort: integer('The port on each node on which this service is exposed when type is NodePort or LoadBalancer.'),
  },
  { required: ['port'] },
);

/** `8080/TCP`, `80:30080/TCP`: the PORT(S) column. */
function portsOf(service: JsonObject): string {
  const ports = (arrayAt(objectAt(service, 'spec'), 'ports') ?? []).filter(isObject);
  if (ports.length === 0) return '<none>';
  return ports
    .map((port) => `${text(port.port)}${port.nodePort ? `:${text(port.nodePort)}` : ''}/${text(port.protocol)}`)
    .join(',');
}

/** Stored and served; no cluster IP is allocated and nothing routes traffic. */
export const services: ResourceDef = defineBuiltin({
  group: '',
  version: 'v1',
  plural: 'services',
  returnsDeletedObject: true,
  kind: 'Service',
  namespaced: true,
  shortNames: ['svc'],
  categories: ['all'],
  statusSubresource: true,
  schema: kindSchema('Service is a named abstraction of software service (for example, mysql).', {
    spec: object(
      'Spec defines the behavior of a service.',
      {
        type: string('Type determines how the Service is exposed.', {
          default: 'ClusterIP',
          enum: ['ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName'],
        }),
        selector: stringMap('Route service traffic to pods with label keys and values matching this selector.'),
        ports: keyedList('The list of ports that are exposed by this service.', 'port', servicePort),
        clusterIP: string('The IP address of the service.'),
        clusterIPs: atomicList('The IP addresses of the service.', string('An IP address.')),
        externalIPs: atomicList('IP addresses for which nodes also accept traffic.', string('An IP address.')),
        externalName: string('The external reference that discovery mechanisms will return as an alias.'),
        sessionAffinity: string('Enable client IP based session affinity.', {
          default: 'None',
          enum: ['ClientIP', 'None'],
        }),
      },
      { 'x-kubernetes-preserve-unknown-fields': true },
    ),
    status: free('Most recently observed status of the service.'),
  }),
  columns: [
    nameColumn(),
    column('Type', 'string', 'The type of the service', (o) => objectAt(o, 'spec')?.type ?? ''),
    column('Cluster-IP', 'string', 'The cluster IP', (o) => stringAt(objectAt(o, 'spec'), 'clusterIP') || '<none>'),
    column('External-IP', 'string', 'External IPs', (o) => {
      const ips = arrayAt(objectAt(o, 'spec'), 'externalIPs') ?? [];
      return ips.length > 0 ? ips.map(text).join(',') : '<none>';
    }),
    column('Port(s)', 'string', 'The ports of the service', portsOf),
    ageColumn,
    column('Selector', 'string', 'The label selector', (o) => labelPairs(objectAt(objectAt(o, 'spec'), 'selector')), 1),
  ],
});
