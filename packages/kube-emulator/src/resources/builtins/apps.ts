import { atomicList, boolean, free, integer, keyedList, kindSchema, object, string } from '../../schema/builders.js';
import type { Schema } from '../../schema/types.js';
import { ageColumn, column, labelPairs, nameColumn } from '../../table/columns.js';
import { arrayAt, isObject, objectAt, stringAt, text, type JsonObject } from '../../util/json.js';
import type { ResourceDef } from '../types.js';
import { defineBuiltin } from './define.js';
import { defaultPodTemplate, workloadCauses } from './pod-template.js';

/**
 * Pod templates are described down to the lists that strategic merge patch and server-side apply merge
 * by key (containers, ports, env, mounts, volumes); the many other PodSpec fields are kept as given.
 */
const open = (description: string, properties: Record<string, Schema>): Schema =>
  object(description, properties, { 'x-kubernetes-preserve-unknown-fields': true });

const byName = (description: string, item: string): Schema => keyedList(description, 'name', free(item));

const container = open('A single application container that you want to run within a pod.', {
  name: string('Name of the container specified as a DNS_LABEL.'),
  image: string('Container image name.'),
  imagePullPolicy: string('Image pull policy.', { enum: ['Always', 'Never', 'IfNotPresent'] }),
  command: atomicList('Entrypoint array.', string('An argument.')),
  args: atomicList('Arguments to the entrypoint.', string('An argument.')),
  ports: keyedList(
    'List of ports to expose from the container.',
    'containerPort',
    open('ContainerPort represents a network port in a single container.', {
      name: string('An IANA_SVC_NAME for the port.'),
      containerPort: integer('Number of port to expose on the pod IP address.'),
      protocol: string('Protocol for port.', { default: 'TCP', enum: ['TCP', 'UDP', 'SCTP'] }),
    }),
  ),
  env: byName('List of environment variables to set in the container.', 'EnvVar.'),
  volumeMounts: keyedList('Pod volumes to mount into the container.', 'mountPath', free('VolumeMount.')),
  resources: free('Compute Resources required by this container.'),
  securityContext: free('SecurityContext defines the security options the container should be run with.'),
  livenessProbe: free('Periodic probe of container liveness.'),
  readinessProbe: free('Periodic probe of container service readiness.'),
});

const podSpec = open('PodSpec is a description of a pod.', {
  containers: keyedList('List of containers belonging to the pod.', 'name', container),
  initContainers: keyedList('List of initialization containers belonging to the pod.', 'name', container),
  volumes: byName('List of volumes that can be mounted by containers belonging to the pod.', 'Volume.'),
  imagePullSecrets: byName('References to secrets for pulling images.', 'LocalObjectReference.'),
  serviceAccountName: string('Name of the ServiceAccount to use to run this pod.'),
  automountServiceAccountToken: boolean('Whether a service account token should be automatically mounted.'),
  securityContext: free('Pod-level security attributes and common container settings.'),
  terminationGracePeriodSeconds: integer('Duration in seconds the pod needs to terminate gracefully.', {
    format: 'int64',
  }),
});

const labelSelector = free('A label query over a set of resources.');

export const deployments: ResourceDef = defineBuiltin({
  group: 'apps',
  version: 'v1',
  plural: 'deployments',
  kind: 'Deployment',
  namespaced: true,
  shortNames: ['deploy'],
  categories: ['all'],
  statusSubresource: true,
  tracksGeneration: true,
  strategy: {
    normalize(deployment) {
      const spec = objectAt(deployment, 'spec');
      const template = objectAt(spec, 'template');
      if (template) defaultPodTemplate(template);
      const strategy = objectAt(spec, 'strategy');
      if (strategy && (strategy.type ?? 'RollingUpdate') === 'RollingUpdate') {
        strategy.type ??= 'RollingUpdate';
        const rollingUpdate = isObject(strategy.rollingUpdate) ? strategy.rollingUpdate : (strategy.rollingUpdate = {});
        rollingUpdate.maxUnavailable ??= '25%';
        rollingUpdate.maxSurge ??= '25%';
      }
    },
    derive(deployment) {
      // A struct, written even when no controller fills it.
      deployment.status ??= {};
    },
    validate: (deployment) => workloadCauses(objectAt(deployment, 'spec')),
  },
  schema: kindSchema('Deployment enables declarative updates for Pods and ReplicaSets.', {
    spec: object(
      'Specification of the desired behavior of the Deployment.',
      {
        replicas: integer('Number of desired pods.', { default: 1 }),
        selector: labelSelector,
        template: object('Template describes the pods that will be created.', {
          metadata: free("Standard object's metadata."),
          spec: podSpec,
        }),
        strategy: object(
          'The deployment strategy to use to replace existing pods with new ones.',
          {
            type: string('Type of deployment.', { enum: ['Recreate', 'RollingUpdate'] }),
            rollingUpdate: free('Rolling update config params.'),
          },
          { default: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } } },
        ),
        minReadySeconds: integer('Minimum number of seconds for which a newly created pod should be ready.'),
        revisionHistoryLimit: integer('The number of old ReplicaSets to retain.', { default: 10 }),
        progressDeadlineSeconds: integer('The maximum time in seconds for a deployment to make progress.', {
          default: 600,
        }),
        paused: boolean('Indicates that the deployment is paused.'),
      },
      { required: ['selector', 'template'] },
    ),
    status: free('Most recently observed status of the Deployment (no controller fills it here).'),
  }),
  columns: [
    nameColumn(),
    column('Ready', 'string', 'Number of the pod with ready state', (o) => {
      const ready = objectAt(o, 'status')?.readyReplicas ?? 0;
      return `${text(ready)}/${text(objectAt(o, 'spec')?.replicas ?? 0)}`;
    }),
    column(
      'Up-to-date',
      'string',
      'Total number of non-terminating pods targeted by this deployment that have the desired template spec.',
      (o) => objectAt(o, 'status')?.updatedReplicas ?? 0,
    ),
    column(
      'Available',
      'string',
      'Total number of available non-terminating pods (ready for at least minReadySeconds) targeted by this deployment.',
      (o) => objectAt(o, 'status')?.availableReplicas ?? 0,
    ),
    ageColumn,
    column('Containers', 'string', 'Names of each container in the template.', (o) => containersOf(o, 'name'), 1),
    column(
      'Images',
      'string',
      'Images referenced by each container in the template.',
      (o) => containersOf(o, 'image'),
      1,
    ),
    column(
      'Selector',
      'string',
      'Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.',
      (o) => labelPairs(objectAt(objectAt(objectAt(o, 'spec'), 'selector'), 'matchLabels')),
      1,
    ),
  ],
});

function containersOf(deployment: JsonObject, field: string): string {
  const spec = objectAt(objectAt(objectAt(deployment, 'spec'), 'template'), 'spec');
  return (arrayAt(spec, 'containers') ?? [])
    .map((item) => (isObject(item) ? (stringAt(item, field) ?? '') : ''))
    .join(',');
}
