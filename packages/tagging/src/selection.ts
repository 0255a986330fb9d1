import { SINGLETON_NAME, type AWSCluster, type AWSTagPolicy } from '@keymaster/api';
import { selectorMatches } from '@keymaster/identity';
import type { TagPolicies } from './layers.js';

/**
 * The labels a selected policy's clusterSelector reads: the AWSCluster's own. The one place that says
 * what "the labels of the cluster" are, so that a Cluster API Cluster's or its ClusterClass's labels
 * can join here when CAPA's clusters are adopted.
 */
export function clusterLabels(cluster: AWSCluster): Record<string, string> {
  return cluster.metadata.labels ?? {};
}

/** Whether a policy is a selected layer (any AWSTagPolicy but `default`, the global layer). */
export const isSelectedPolicy = (policy: AWSTagPolicy): boolean => policy.metadata.name !== SINGLETON_NAME;

/**
 * Whether a selected policy tags a cluster: its clusterSelector matches the cluster's labels and its
 * namespaceSelector its namespace's, an absent selector matching anything. A policy with neither (the
 * CRD refuses it) or with an empty one selects nothing: an empty selector never means "every cluster".
 */
export function policySelects(
  policy: AWSTagPolicy,
  cluster: AWSCluster,
  namespaceLabels: Readonly<Record<string, string>>,
): boolean {
  const { clusterSelector, namespaceSelector } = policy.spec;
  if (!isSelectedPolicy(policy) || (clusterSelector === undefined && namespaceSelector === undefined)) return false;
  return (
    (clusterSelector === undefined || selectorMatches(clusterSelector, clusterLabels(cluster))) &&
    (namespaceSelector === undefined || selectorMatches(namespaceSelector, namespaceLabels))
  );
}

/**
 * The selected policies that tag a cluster, in authority order: lower precedence first, and of equal
 * precedence the name last in alphabetical order first, so that the last is the one that wins a key.
 */
export function selectedPolicies(
  policies: Iterable<AWSTagPolicy>,
  cluster: AWSCluster,
  namespaceLabels: Readonly<Record<string, string>>,
): AWSTagPolicy[] {
  const name = (policy: AWSTagPolicy) => policy.metadata.name ?? '';
  return [...policies]
    .filter((policy) => policySelects(policy, cluster, namespaceLabels))
    .sort(
      (a, b) =>
        (a.spec.precedence ?? 0) - (b.spec.precedence ?? 0) || (name(a) < name(b) ? 1 : name(a) > name(b) ? -1 : 0),
    );
}

/** The policies of a cluster's tag layers out of every AWSTagPolicy: the global one, and those that select it. */
export function tagPoliciesOf(
  policies: readonly AWSTagPolicy[],
  cluster: AWSCluster,
  namespaceLabels: Readonly<Record<string, string>>,
): TagPolicies {
  return {
    policy: policies.find((policy) => !isSelectedPolicy(policy)),
    selected: selectedPolicies(policies, cluster, namespaceLabels),
  };
}
