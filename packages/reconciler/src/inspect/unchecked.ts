import { KeymasterError, type AWSCluster, type IdentityKind, type IdentityLink } from '@keymaster/api';
import { CONTROLLER_IDENTITY, linkName, type IdentityObject } from '@keymaster/identity';
import { accountVerdict, boundTenants } from '../awscluster/account-binding.js';
import { KubeAccessError } from '../kube/access-error.js';
import { describeKubeError } from '../kube/errors.js';
import type { InspectContext } from './context.js';

/** A failure as the error said it: code, message, fix. */
export interface Failure {
  code?: string;
  message: string;
  hint?: string;
}

export function failureOf(error: unknown): Failure {
  if (error instanceof KeymasterError)
    return { code: error.code, message: error.message, ...(error.hint ? { hint: error.hint } : {}) };
  const described = describeKubeError(error);
  return { message: described instanceof Error ? described.message : JSON.stringify(described) };
}

/** What a command could not check, and why: a read the user's RBAC refuses (with its fix). */
export interface Unchecked extends Failure {
  check: string;
}

/** A read the user's RBAC refused: the command goes on without what it reads, and says so. */
export const isForbidden = (error: unknown): error is KubeAccessError =>
  error instanceof KubeAccessError && error.forbidden;

/** Records a check left out; one refusal that leaves out several checks is told once, naming them all. */
export function leaveOut(unchecked: Unchecked[], check: string, why: Failure): void {
  const same = unchecked.find(({ message }) => message === why.message);
  if (same) same.check = `${same.check}; so ${check}`;
  else unchecked.push({ check, ...why });
}

/** What `read` gives, or undefined when RBAC refuses it, recorded in `unchecked` as `check`. */
export async function readable<T>(
  check: string,
  read: () => Promise<T>,
  unchecked: Unchecked[],
): Promise<T | undefined> {
  try {
    return await read();
  } catch (error) {
    if (!isForbidden(error)) throw error;
    leaveOut(unchecked, check, failureOf(error));
    return undefined;
  }
}

/**
 * A cluster's chain as far as the user may know it without checking it: the links the controller last
 * checked (`status.identityChain`), else its identityRef; and those of their identities it may read.
 */
export async function readableChain(
  context: InspectContext,
  cluster: AWSCluster,
  unchecked: Unchecked[],
): Promise<{ links: IdentityLink[]; identities: (IdentityObject | undefined)[] }> {
  const observed = cluster.status?.identityChain ?? [];
  const links: IdentityLink[] = observed.length > 0 ? observed : [cluster.spec.identityRef ?? CONTROLLER_IDENTITY];
  const identities = [];
  for (const link of links)
    identities.push(
      await readable(
        `${linkName(link)}: its tag layer and whom it allows`,
        () =>
          context.store.getIdentity(
            link.kind as IdentityKind,
            link.name,
            cluster.metadata.namespace ?? '',
            link.apiGroup,
          ),
        unchecked,
      ),
    );
  return { links, identities };
}

/**
 * Why the cluster's own identity may not act in the account it resolved into, as the controller
 * decides it (`accountVerdict`); undefined when it may. Reads the account's binding, and while it has
 * none, the identities (an earlier release's claims).
 */
export async function accountRefusal(
  context: InspectContext,
  own: IdentityObject | undefined,
  accountId: string,
): Promise<Failure | undefined> {
  const tenant = own?.metadata.labels?.[context.tenantLabel];
  if (!own || tenant === undefined) return undefined;
  const binding = await context.accountBinding(accountId);
  const identities = binding ? [] : await context.store.listIdentities();
  const verdict = accountVerdict(
    own,
    tenant,
    accountId,
    boundTenants(binding, accountId, identities, context.tenantLabel),
  );
  if (verdict.allowed) return undefined;
  const code = verdict.reason === 'AccountNotBound' ? 'ACCOUNT_NOT_BOUND' : 'ACCOUNT_OF_ANOTHER_TENANT';
  return { code: `ERR_KEYMASTER_${code}`, message: verdict.message };
}
