import type { ManagedPolicySpec, ResourceSpec, World } from '@keymaster/aws-emulator';
import { owned, CLUSTER } from '../fixtures.js';

/** One tenant account, a user whose keys the tests sign with, and three regions of one cluster's resources. */
export const ACCOUNT = '111111111111';
export const REGIONS = ['us-east-1', 'eu-west-1', 'ap-southeast-2'] as const;
export const TAGGER_KEYS = {
  accessKeyId: 'AKIAEXAMPLETAGGER001',
  secretAccessKey: 'tagger-secret-key-0123456789abcdefghijkl',
};

/** What the tagger may do: everything tagging needs, unless a test takes some of it away. */
export const FULL_ACCESS = ['tag:*', 'ec2:CreateTags', 'ec2:DeleteTags', 'ec2:DescribeTags'];

export const instance = (region: string, index: number) =>
  `arn:aws:ec2:${region}:${ACCOUNT}:instance/i-${index.toString(16).padStart(17, '0')}`;

/**
 * `count` instances of a cluster (the fixture's by default) in `region`, numbered from `from`. Their
 * ownership tags vary as CAPA's do: the first of every three carries only the CAPA key, the second
 * only the kubernetes.io key, the third both; `tags` go on top.
 */
export function clusterInstances(
  region: string,
  count: number,
  options: { tags?: Record<string, string>; from?: number; clusterName?: string } = {},
): ResourceSpec[] {
  const { tags = {}, from = 0, clusterName = CLUSTER } = options;
  const [capa, kubernetes] = Object.entries(owned('owned', clusterName));
  return Array.from({ length: count }, (_, i) => {
    const ownership = [[capa!], [kubernetes!], [capa!, kubernetes!]][(from + i) % 3]!;
    return { arn: instance(region, from + i), tags: { ...Object.fromEntries(ownership), ...tags } };
  });
}

/** Resources discovery must not find: another cluster's, and ours that are shared. */
export function neighbours(region: string): ResourceSpec[] {
  return [
    { arn: instance(region, 0xf00), tags: owned('owned', 'other-cluster') },
    { arn: instance(region, 0xf01), tags: owned('shared', CLUSTER) },
  ];
}

/** The account with these resources; the tagger is allowed `allow` and the given managed policies. */
export function taggingWorld(
  resources: ResourceSpec[],
  access: { allow?: string[]; policies?: ManagedPolicySpec[] } = {},
): World {
  const policies = access.policies ?? [];
  return {
    accounts: [
      {
        id: ACCOUNT,
        users: [
          {
            name: 'tagger',
            accessKeys: [TAGGER_KEYS],
            allow: access.allow ?? FULL_ACCESS,
            policies: policies.map(({ arn }) => arn),
          },
        ],
        policies,
        resources,
      },
    ],
  };
}
