import type { Principal } from '../world/directory.js';
import type { ConditionContext } from './conditions.js';

/** The global condition keys a call carries about its caller, its region and the time. */
export function principalContext(principal: Principal, region: string, now: Date): Map<string, string[]> {
  const context = new Map<string, string[]>([
    ['aws:principalaccount', [principal.accountId]],
    ['aws:userid', [principal.userId]],
    ['aws:requestedregion', [region]],
    ['aws:currenttime', [now.toISOString()]],
    ['aws:epochtime', [String(Math.floor(now.getTime() / 1000))]],
  ]);
  if (principal.kind === 'user') {
    context.set('aws:principalarn', [principal.arn]);
    context.set('aws:principaltype', ['User']);
    context.set('aws:username', [principal.name]);
  } else {
    context.set('aws:principalarn', [principal.role.arn]);
    context.set('aws:principaltype', ['AssumedRole']);
    for (const [key, value] of principal.tags) context.set(`aws:principaltag/${key.toLowerCase()}`, [value]);
  }
  return context;
}

/** The context with more keys (resource tags, request tags) added; key names are matched case-insensitively. */
export function withKeys(base: ConditionContext, extra: Readonly<Record<string, readonly string[]>>): ConditionContext {
  const entries = Object.entries(extra);
  if (entries.length === 0) return base;
  const context = new Map(base);
  for (const [key, values] of entries) context.set(key.toLowerCase(), values);
  return context;
}

/** `aws:ResourceTag/<key>` for every tag a resource has. */
export function resourceTagKeys(tags: ReadonlyMap<string, string>): Record<string, string[]> {
  const keys: Record<string, string[]> = {};
  for (const [key, value] of tags) keys[`aws:ResourceTag/${key}`] = [value];
  return keys;
}

/** `aws:RequestTag/<key>` for each tag a call sets, and `aws:TagKeys` for all of their keys. */
export function requestTagKeys(tags: Iterable<readonly [string, string]>): Record<string, string[]> {
  const keys: Record<string, string[]> = { 'aws:TagKeys': [] };
  for (const [key, value] of tags) {
    keys[`aws:RequestTag/${key}`] = [value];
    keys['aws:TagKeys']!.push(key);
  }
  return keys;
}
