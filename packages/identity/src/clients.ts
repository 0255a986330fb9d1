import { KeymasterError } from '@keymaster/api';
import type { AwsCredentialIdentityProvider } from '@smithy/types';
import { awsErrorCode } from './aws-codes.js';
import type { RefreshingCredentials } from './refreshing-credentials.js';

/** The part of an AWS SDK v3 client that Keymaster relies on. */
export interface SdkClient {
  middlewareStack: {
    add(middleware: unknown, options: { step: 'initialize'; name: string }): void;
    remove(name: string): boolean;
  };
  destroy(): void;
}

export interface SdkClientConfig {
  region: string;
  credentials: AwsCredentialIdentityProvider;
  endpoint?: string;
}

export type SdkClientClass<C extends SdkClient> = new (config: SdkClientConfig) => C;

/** Error codes (`awsErrorCode`) by which AWS says it does not accept the credentials (any more). */
const REFUSED_CREDENTIALS = new Set(['ExpiredToken', 'InvalidClientTokenId', 'UnrecognizedClient']);

type Handler = (args: unknown) => Promise<unknown>;

/** Told about every AWS call a client makes: `sts`/`AssumeRole`, and AWS's error code or `OK`. */
export type AwsCallObserver = (service: string, operation: string, code: string) => void;

/**
 * Makes an SDK client that signs with `credentials`. When AWS refuses those credentials, the client
 * renews them once and retries the call once: one renewal however many calls fail together.
 */
export function makeClient<C extends SdkClient>(
  Client: SdkClientClass<C>,
  credentials: RefreshingCredentials,
  region: string,
  endpoint: string | undefined,
  observe?: AwsCallObserver,
): C {
  const client = new Client({ region, credentials: credentials.provider, ...(endpoint ? { endpoint } : {}) });
  // The SDK's logger middleware runs every input and output through its sensitive-data filter for a
  // logger that discards them (Keymaster logs its own way): about 1 % of the controller's CPU.
  client.middlewareStack.remove('loggerMiddleware');
  const renewRefusedCredentials = (next: Handler) => async (args: unknown) => {
    const generation = credentials.generation;
    try {
      return await next(args);
    } catch (error) {
      if (!REFUSED_CREDENTIALS.has(awsErrorCode((error as Error).name))) throw error;
      credentials.invalidate(generation);
      return next(args);
    }
  };
  client.middlewareStack.add(renewRefusedCredentials, { step: 'initialize', name: 'keymasterRenewRefusedCredentials' });
  if (observe) {
    const count = (next: Handler, context: { clientName?: string; commandName?: string }) => async (args: unknown) => {
      const service = (context.clientName ?? '').replace(/Client$/, '').toLowerCase();
      const operation = (context.commandName ?? '').replace(/Command$/, '');
      try {
        const output = await next(args);
        observe(service, operation, 'OK');
        return output;
      } catch (error) {
        // A failure to obtain the credentials happened before any request: it is no AWS call.
        if (!(error instanceof KeymasterError)) observe(service, operation, (error as Error).name);
        throw error;
      }
    };
    // Innermost of the initialize step: every attempt the renewal above makes is counted.
    client.middlewareStack.add(count, { step: 'initialize', name: 'keymasterCountAwsCalls' });
  }
  return client;
}
