import type { AWSCredentialsRequest } from '@keymaster/api';
import { expect } from 'chai';
import { MAX_SPEC_BYTES, SPEC_NOT_KEPT, requestAsRead } from '../../src/credentials/request-as-read.js';

const request = (resources: string[], annotations: Record<string, string> = {}): AWSCredentialsRequest => ({
  apiVersion: 'infrastructure.keymaster.dev/v1beta1',
  kind: 'AWSCredentialsRequest',
  metadata: { name: 'reports', namespace: 'tenant-a', labels: { big: 'x' }, annotations },
  spec: {
    identityRef: { kind: 'AWSClusterRoleIdentity', name: 'workloads' },
    statements: [{ effect: 'Allow', actions: ['s3:GetObject'], resources }],
    secretRef: { name: 'reports-aws' },
  },
});

describe('requestAsRead: what the cache keeps of an AWSCredentialsRequest', () => {
  it('keeps a spec a valid request could have, without labels or annotations', () => {
    const read = requestAsRead(request(['arn:aws:s3:::reports/*'], { note: 'n'.repeat(100_000) }));
    expect(read.spec).to.deep.equal(request(['arn:aws:s3:::reports/*']).spec);
    expect(read.metadata.labels).to.equal(undefined);
    expect(read.metadata.annotations).to.equal(undefined);
  });

  it('keeps only the references of a spec larger than any valid one, and says how large it was', () => {
    const large = request(Array.from({ length: 40 }, (_, index) => `arn:aws:s3:::${String(index).padEnd(2000, 'x')}`));
    const bytes = Buffer.byteLength(JSON.stringify(large.spec));
    expect(bytes).to.be.above(MAX_SPEC_BYTES);
    const read = requestAsRead(large);
    expect(read.spec).to.deep.equal({ identityRef: large.spec.identityRef, secretRef: large.spec.secretRef });
    expect(read.metadata.annotations).to.deep.equal({ [SPEC_NOT_KEPT]: String(bytes) });
  });

  it('never takes the marker from the request: a tenant cannot set it', () => {
    const read = requestAsRead(request(['*'], { [SPEC_NOT_KEPT]: '1' }));
    expect(read.metadata.annotations).to.equal(undefined);
  });
});
