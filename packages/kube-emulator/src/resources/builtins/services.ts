import { atomicList, free, integer, keyedList, kindSchema, object, string, stringMap } from '../../schema/builders.js';
import { ageColumn, column, labelPairs, nameColumn } from '../../table/columns.js';
import { arrayAt, isObject, objectAt, stringAt, text, type JsonObject } from '../../util/json.js';
import type { StatusCause } from '../../api/status.js';
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

/** Cluster IPs handed out, from kubeadm's default service range 10.96.0.0/12. */
const allocated = new Set<string>();
function allocateClusterIP(): string {
  for (;;) {
    const offset = 1 + Math.floor(Math.random() * (2 ** 20 - 2));
    const ip = `10.${96 + (offset >> 16)}.${(offset >> 8) & 255}.${offset & 255}`;
    if (!allocated.has(ip)) {
      allocated.add(ip);
      return ip;
    }
  }
}

const usesClusterIP = (spec: JsonObject): boolean => spec.type !== 'ExternalName';

/**
 * What kube-apiserver's Service storage sets: a cluster IP (kept across updates that leave it out),
 * the single-stack IPv4 family, internalTrafficPolicy, a targetPort equal to the port, an empty
 * load balancer status, and node ports for NodePort and LoadBalancer Services.
 */
function allocate(service: JsonObject, old: JsonObject | undefined): void {
  const spec = objectAt(service, 'spec');
  if (!spec) return;
  const oldSpec = objectAt(old, 'spec');
  if (usesClusterIP(spec)) {
    const kept = stringAt(oldSpec, 'clusterIP');
    if (spec.clusterIP === undefined || spec.clusterIP === '') spec.clusterIP = kept ?? allocateClusterIP();
    spec.clusterIPs ??= [spec.clusterIP];
    spec.ipFamilies ??= ['IPv4'];
    spec.ipFamilyPolicy ??= 'SingleStack';
    spec.internalTrafficPolicy ??= 'Cluster';
  }
  const nodePorts = spec.type === 'NodePort' || spec.type === 'LoadBalancer';
  for (const port of (arrayAt(spec, 'ports') ?? []).filter(isObject)) {
    if (nodePorts && port.nodePort === undefined) port.nodePort = 30000 + Math.floor(Math.random() * 2768);
  }
  service.status = isObject(service.status) ? service.status : {};
  objectAt(service, 'status')!.loadBalancer ??= {};
}

/** A port's targetPort defaults to its port (before validation, which checks both). */
function defaultTargetPorts(service: JsonObject): void {
  for (const port of (arrayAt(objectAt(service, 'spec'), 'ports') ?? []).filter(isObject)) {
    port.targetPort ??= port.port ?? null;
  }
}

const PORT_RANGE = 'must be between 1 and 65535, inclusive';

function portCauses(service: JsonObject): StatusCause[] {
  const causes: StatusCause[] = [];
  (arrayAt(objectAt(service, 'spec'), 'ports') ?? []).forEach((port, index) => {
    if (!isObject(port)) return;
    for (const field of ['port', 'targetPort']) {
      const value = port[field];
      if (typeof value === 'number' && (value < 1 || value > 65535)) {
        causes.push({
          reason: 'FieldValueInvalid',
          field: `spec.ports[${index}].${field}`,
          message: `Invalid value: ${value}: ${PORT_RANGE}`,
        });
      }
    }
  });
  return causes;
}

/** Stored and served, with a cluster IP allocated; nothing routes traffic. */
export const services: ResourceDef = defineBuiltin({
  group: '',
  version: 'v1',
  plural: 'services',
  returnsDeletedObject: true,
  kind: 'Service',
  strategy: {
    normalize: defaultTargetPorts,
    derive: allocate,
    validate: portCauses,
  },
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
          enum: ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'],
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
    column(
      'Type',
      'string',
      'type determines how the Service is exposed. Defaults to ClusterIP. Valid options are ExternalName, ClusterIP, NodePort, and LoadBalancer. "ClusterIP" allocates a cluster-internal IP address for load-balancing to endpoints. Endpoints are determined by the selector or if that is not specified, by manual construction of an Endpoints object or EndpointSlice objects. If clusterIP is "None", no virtual IP is allocated and the endpoints are published as a set of endpoints rather than a virtual IP. "NodePort" builds on ClusterIP and allocates a port on every node which routes to the same endpoints as the clusterIP. "LoadBalancer" builds on NodePort and creates an external load-balancer (if supported in the current cloud) which routes to the same endpoints as the clusterIP. "ExternalName" aliases this service to the specified externalName. Several other fields do not apply to ExternalName services. More info: https://kubernetes.io/docs/concepts/services-networking/service/#publishing-services-service-types',
      (o) => objectAt(o, 'spec')?.type ?? '',
    ),
    column(
      'Cluster-IP',
      'string',
      'clusterIP is the IP address of the service and is usually assigned randomly. If an address is specified manually, is in-range (as per system configuration), and is not in use, it will be allocated to the service; otherwise creation of the service will fail. This field may not be changed through updates unless the type field is also being changed to ExternalName (which requires this field to be blank) or the type field is being changed from ExternalName (in which case this field may optionally be specified, as describe above).  Valid values are "None", empty string (""), or a valid IP address. Setting this to "None" makes a "headless service" (no virtual IP), which is useful when direct endpoint connections are preferred and proxying is not required.  Only applies to types ClusterIP, NodePort, and LoadBalancer. If this field is specified when creating a Service of type ExternalName, creation will fail. This field will be wiped when updating a Service to type ExternalName. More info: https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies',
      (o) => stringAt(objectAt(o, 'spec'), 'clusterIP') || '<none>',
    ),
    column(
      'External-IP',
      'string',
      'externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.  These IPs are not managed by Kubernetes.  The user is responsible for ensuring that traffic arrives at a node with this IP.  A common example is external load-balancers that are not part of the Kubernetes system.',
      (o) => {
        const ips = arrayAt(objectAt(o, 'spec'), 'externalIPs') ?? [];
        return ips.length > 0 ? ips.map(text).join(',') : '<none>';
      },
    ),
    column(
      'Port(s)',
      'string',
      'The list of ports that are exposed by this service. More info: https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies',
      portsOf,
    ),
    ageColumn,
    column(
      'Selector',
      'string',
      'Route service traffic to pods with label keys and values matching this selector. If empty or not present, the service is assumed to have an external process managing its endpoints, which Kubernetes will not modify. Only applies to types ClusterIP, NodePort, and LoadBalancer. Ignored if type is ExternalName. More info: https://kubernetes.io/docs/concepts/services-networking/service/',
      (o) => labelPairs(objectAt(objectAt(o, 'spec'), 'selector')),
      1,
    ),
  ],
});
