import type { IdentityLink } from '@keymaster/api';
import type {
  IdentityResolver,
  IdentitySession,
  NarrowedRequest,
  NarrowedSession,
  ResolveRequest,
} from '@keymaster/identity';

export const ACCOUNT = '111111111111';

/** A resolved session of `chain` (the cluster's own identity first); its credentials and clients are never used. */
export function fakeSession(
  chain: IdentityLink[],
  fields: Partial<Pick<IdentitySession, 'accountId' | 'deleting'>> = {},
): IdentitySession {
  const accountId = fields.accountId ?? ACCOUNT;
  return {
    key: chain.map(({ kind, name }) => `${kind}/${name}`).join('>'),
    accountId,
    principalArn: `arn:aws:sts::${accountId}:assumed-role/${chain[0]?.name ?? 'controller'}/keymaster`,
    chain,
    deleting: fields.deleting ?? [],
    dependsOn: [],
    credentials: Object.assign(() => Promise.reject(new Error('unit tests make no AWS call')), {
      memoized: true as const,
    }),
    renewedAt: () => undefined,
    client: () => {
      throw new Error('unit tests make no AWS call');
    },
  };
}

/** The resolver's answers, set by the test: a session, or what it throws. */
export class FakeResolver implements Pick<IdentityResolver, 'resolve' | 'resolveNarrowed' | 'release'> {
  answer: IdentitySession | Error = new Error('no answer set');
  narrowed: NarrowedSession | Error = new Error('no answer set');
  readonly asked: (ResolveRequest | NarrowedRequest)[] = [];
  readonly released: string[] = [];

  resolve(request: ResolveRequest): Promise<IdentitySession> {
    this.asked.push(request);
    return this.answer instanceof Error ? Promise.reject(this.answer) : Promise.resolve(this.answer);
  }

  resolveNarrowed(request: NarrowedRequest): Promise<NarrowedSession> {
    this.asked.push(request);
    return this.narrowed instanceof Error ? Promise.reject(this.narrowed) : Promise.resolve(this.narrowed);
  }

  release(holder: string): void {
    this.released.push(holder);
  }
}
