import { API_VERSION, type AWSCluster, type AWSCredentialsRequest } from '@keymaster/api';

/**
 * The largest objects a tenant can create, as the API server bounds them: annotations at most 256 KiB
 * in all (kube-apiserver's limit), labels of no limit of their own but the object's (etcd stores at most
 * 1.5 MiB), and every spec field at its schema's limits. About 1 MiB of JSON each; a cache that kept one
 * whole would hold about 1.3 MiB of heap for it (labels are objects of their own).
 */
const ANNOTATION_BYTES = 250 * 1024;
/** Labels of 63-character values under short keys: as many as fit beside the rest, under 1.5 MiB. */
const LABELS = 9_000;

const repeat = (text: string, length: number) => text.repeat(Math.ceil(length / text.length)).slice(0, length);

function labels(count: number): Record<string, string> {
  const padding: Record<string, string> = {};
  for (let index = 0; index < count; index += 1) padding[`pad.example/l${index}`] = repeat(`v${index}`, 63);
  return padding;
}

/** An AWSCluster with 50 additional tags of the longest key and value, extra regions, labels and an annotation. */
export function largestCluster(namespace: string, name: string): AWSCluster {
  const additionalTags = Object.fromEntries(
    Array.from({ length: 50 }, (_, index) => [repeat(`k${index}x`, 128), repeat(`v${index}y`, 256)]),
  );
  return {
    apiVersion: API_VERSION,
    kind: 'AWSCluster',
    metadata: {
      name,
      namespace,
      labels: labels(LABELS),
      annotations: { 'pad.example/note': repeat('n', ANNOTATION_BYTES) },
    },
    spec: {
      region: 'us-west-2',
      clusterName: repeat(`${name}-`, 83).replace(/-+$/, 'x'),
      additionalTags,
      tagging: { removalPolicy: 'Delete', extraRegions: ['eu-west-1', 'eu-west-2', 'eu-west-3', 'us-east-1'] },
    },
  };
}

/** An AWSCredentialsRequest with 40 statements of long actions and resources (about 1 MiB) and labels. */
export function largestRequest(namespace: string, name: string, identity: string): AWSCredentialsRequest {
  const statements = Array.from({ length: 40 }, (_, index) => ({
    sid: `S${index}`,
    effect: 'Allow' as const,
    actions: Array.from({ length: 20 }, (_, action) => `svc${index}:${repeat(`Act${action}`, 90)}`),
    resources: Array.from({ length: 12 }, (_, resource) => `arn:aws:s3:::${repeat(`b${index}r${resource}`, 1900)}`),
  }));
  return {
    apiVersion: API_VERSION,
    kind: 'AWSCredentialsRequest',
    // The statements fill most of etcd's 1.5 MiB: a part of the labels fits beside them.
    metadata: { name, namespace, labels: labels(1_000) },
    spec: {
      identityRef: { kind: 'AWSClusterRoleIdentity', name: identity },
      statements,
      secretRef: { name: `${name}-aws` },
    },
  };
}
