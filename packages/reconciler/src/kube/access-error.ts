import { ApiException } from '@kubernetes/client-node';
import { KeymasterError } from '@keymaster/api';
import { isNetworkFailure } from '@keymaster/identity';

/** A read a command makes, as RBAC and kubectl name it. */
export interface KubeRequest {
  verb: 'get' | 'list';
  /** The resource with its API group, as `kubectl auth can-i` takes it: `awsclusters.infrastructure.keymaster.dev`, `secrets`. */
  resource: string;
  /** A namespace, `all` for every namespace; absent for a cluster-scoped resource. */
  namespace?: string;
  name?: string;
}

const where = ({ namespace }: KubeRequest): string =>
  namespace === undefined
    ? 'at the cluster scope'
    : namespace === 'all'
      ? 'in every namespace'
      : `in namespace ${namespace}`;
const scopeFlag = ({ namespace }: KubeRequest): string =>
  namespace === undefined ? '' : namespace === 'all' ? ' -A' : ` -n ${namespace}`;

/** The API server's own words from a Status body, else client-node's. */
function serverMessage(error: ApiException<unknown>): string {
  try {
    const status = JSON.parse(error.body as string) as { message?: unknown };
    if (typeof status.message === 'string') return status.message;
  } catch {
    // not a Status: the code says enough
  }
  return `HTTP ${error.code}`;
}

/**
 * A read the API server refused or could not answer, told as a person needs it: what was being read,
 * what the user lacks (the RBAC verb and resource and where) or what failed, and the fix; never a stack.
 */
export class KubeAccessError extends KeymasterError {
  constructor(
    /** Absent when the failure reached the command's end without its read being named (a fallback). */
    readonly request: KubeRequest | undefined,
    code: `ERR_KEYMASTER_${string}`,
    message: string,
    options: { hint?: string; cause?: unknown },
  ) {
    super(code, message, options);
  }

  /** RBAC refused the read (403): a user without the right may go on without what it reads. */
  get forbidden(): boolean {
    return this.code === 'ERR_KEYMASTER_FORBIDDEN';
  }
}

/**
 * `error` as a KubeAccessError when it is the API server's (or the way to it's), else undefined. `advice`:
 * what the user may do without the right it lacks.
 */
export function kubeAccessError(
  error: unknown,
  what: string,
  request?: KubeRequest,
  advice = 'ask the platform team for it if you need what it reads',
): KubeAccessError | undefined {
  if (error instanceof KubeAccessError) return error;
  if (error instanceof ApiException && error.code === 403)
    return new KubeAccessError(request, 'ERR_KEYMASTER_FORBIDDEN', `cannot ${what}: ${serverMessage(error)}`, {
      hint: request
        ? `That takes ${request.verb} ${request.resource} ${where(request)}, which your RBAC does not grant: ${advice}. ` +
          `\`kubectl auth can-i ${request.verb} ${request.resource}${scopeFlag(request)}\` says what you may.`
        : `Your RBAC does not grant it (the message names the verb and resource): ${advice}. \`kubectl auth can-i --list\` says what you may.`,
      cause: error,
    });
  if (error instanceof ApiException && error.code === 401)
    return new KubeAccessError(
      request,
      'ERR_KEYMASTER_API_SERVER_REFUSED',
      `cannot ${what}: the API server refused the kubeconfig's credentials (401)`,
      {
        hint: 'Renew or fix the user of the kubeconfig context (token, client certificate, exec plugin).',
        cause: error,
      },
    );
  if (error instanceof ApiException)
    return new KubeAccessError(
      request,
      'ERR_KEYMASTER_API_REQUEST_FAILED',
      `cannot ${what}: the API server answered ${error.code}: ${serverMessage(error)}`,
      {
        hint: request
          ? `Retry; \`kubectl get ${request.resource}${scopeFlag(request)}\` shows the API server's answer too.`
          : 'Retry; if it persists, check the API server.',
        cause: error,
      },
    );
  if (isNetworkFailure(error))
    return new KubeAccessError(
      request,
      'ERR_KEYMASTER_API_SERVER_UNREACHABLE',
      `cannot ${what}: the API server cannot be reached: ${(error as Error).message || (error as Error).name}`,
      {
        hint: 'Check that the cluster runs and that this host can reach it (DNS, firewall, proxy, certificate).',
        cause: error,
      },
    );
  return undefined;
}

/** Runs a read, turning the API server's refusals and failures into a KubeAccessError that says what was read. */
export async function kubeRead<T>(
  what: string,
  request: KubeRequest,
  read: () => Promise<T>,
  advice?: string,
): Promise<T> {
  try {
    return await read();
  } catch (error) {
    throw kubeAccessError(error, what, request, advice) ?? error;
  }
}
