import { ApiException } from '@kubernetes/client-node';

/** The code and Status body of a client-node call that must fail; throws if it succeeds. */
export async function failure(promise: Promise<unknown>): Promise<{ code: number; status: Record<string, unknown> }> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ApiException)
      return { code: error.code, status: JSON.parse(error.body as string) as Record<string, unknown> };
    throw error;
  }
  throw new Error('expected the call to fail');
}
