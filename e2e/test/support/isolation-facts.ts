import { ApiException } from '@kubernetes/client-node';
import type { ResourceSpec } from '@keymaster/aws-emulator';
import { expect } from 'chai';
import { TAG_WRITES, type AwsFacts } from './aws-facts.js';
import { eventually } from './eventually.js';
import type { Kube } from './kube.js';

/** How many calls that change tags callers whose ARN starts with `principal` made since the last reset. */
export function tagWritesBy(aws: AwsFacts, principal: string): number {
  const byCaller = aws.emulator.calls.summary().byCaller;
  return Object.entries(byCaller)
    .filter(([caller]) => caller.startsWith(principal))
    .reduce((sum, [, actions]) => sum + TAG_WRITES.reduce((count, action) => count + (actions[action] ?? 0), 0), 0);
}

/**
 * Waits until callers whose ARN starts with `principal` have made `count` GetResources calls since
 * the last reset: discovery starts every tag reconcile, so their clusters were reconciled again.
 */
export async function untilDiscovered(aws: AwsFacts, principal: string, count: number): Promise<void> {
  await eventually(() => {
    const calls = Object.entries(aws.emulator.calls.summary().byCaller)
      .filter(([caller]) => caller.startsWith(principal))
      .reduce((sum, [, actions]) => sum + (actions['tag:GetResources'] ?? 0), 0);
    expect(calls, `GetResources calls by ${principal}`).to.be.at.least(count);
  });
}

/** The live tags of each resource, by ARN. */
export function tagsOf(aws: AwsFacts, resources: readonly ResourceSpec[]): Record<string, Record<string, string>> {
  return Object.fromEntries(resources.map(({ arn }) => [arn, aws.tags(arn)]));
}

/** Every tag key some resource on AWS carries. */
export function everyKey(aws: AwsFacts): Set<string> {
  return new Set(aws.emulator.world.listResources().flatMap(({ tags }) => Object.keys(tags)));
}

/** What a tenant is told about one of its clusters: its conditions' messages and its events' messages. */
export async function messagesAbout(kube: Kube, namespace: string, name: string): Promise<string[]> {
  const cluster = await kube.cluster(namespace, name);
  const events = await kube.events(namespace, name);
  return [
    ...(cluster.status?.conditions ?? []).map(({ message }) => message),
    ...events.map(({ message }) => message ?? ''),
  ];
}

/** How the API server refused a request (`undefined` when it did not). */
export async function refusal(request: Promise<unknown>): Promise<{ code: number; message: string } | undefined> {
  try {
    await request;
    return undefined;
  } catch (error) {
    if (!(error instanceof ApiException)) throw error;
    const body: unknown = typeof error.body === 'string' ? JSON.parse(error.body) : error.body;
    const message = (body as { message?: unknown } | undefined)?.message;
    return { code: error.code, message: typeof message === 'string' ? message : '' };
  }
}

/** Waits until reading the object answers 404. */
export async function untilGone(kube: Kube, object: Parameters<Kube['read']>[0]): Promise<void> {
  await eventually(async () => expect((await refusal(kube.read(object)))?.code).to.equal(404));
}

/** Waits until the controller has reconciled the cluster's latest generation; returns the cluster then. */
export async function untilObserved(kube: Kube, namespace: string, name: string) {
  return eventually(async () => {
    const cluster = await kube.cluster(namespace, name);
    expect(cluster.status?.observedGeneration, `${namespace}/${name} observedGeneration`).to.equal(
      cluster.metadata.generation,
    );
    return cluster;
  });
}
