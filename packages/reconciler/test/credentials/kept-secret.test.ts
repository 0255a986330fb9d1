import { V1OwnerReference, type V1Secret } from '@kubernetes/client-node';
import { expect } from 'chai';
import { keptSecret, secretDiffers, type KeptSecret } from '../../src/credentials/kept-secret.js';
import { dataDigest, desiredSecret, EXPIRES_ANNOTATION, REQUEST_LABEL } from '../../src/credentials/owned-secret.js';
import { REQUEST } from './request.js';

const expires = new Date('2026-11-23T12:00:00Z');
/** What the API server sends of the request's Secret, with what others added. */
function served(): V1Secret {
  const secret = desiredSecret(
    REQUEST,
    { AWS_ACCESS_KEY_ID: 'ASIA', AWS_SECRET_ACCESS_KEY: 'x'.repeat(4096) },
    expires,
  );
  Object.assign(secret.metadata!, {
    uid: 'secret-uid',
    resourceVersion: '42',
    labels: { [REQUEST_LABEL]: 'reports', team: 'reports' },
    annotations: { [EXPIRES_ANNOTATION]: expires.toISOString(), big: 'y'.repeat(4096) },
    managedFields: [{ manager: 'kubectl', operation: 'Update' }],
  });
  return secret;
}
const keep = keptSecret((namespace, name) => (namespace === 'tenant-b' && name === 'reports' ? REQUEST : undefined));

describe('what the controller keeps of a Secret', () => {
  it("keeps of the request's own Secret its name, version, owner, our label and annotation, and a digest of the data", () => {
    const secret = served();
    const kept = keep(secret)!;
    expect(kept).to.deep.equal({
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'Opaque',
      metadata: {
        name: 'reports-aws',
        namespace: 'tenant-b',
        uid: 'secret-uid',
        resourceVersion: '42',
        labels: { [REQUEST_LABEL]: 'reports' },
        annotations: { [EXPIRES_ANNOTATION]: '2026-11-23T12:00:00.000Z' },
        ownerReferences: secret.metadata!.ownerReferences,
      },
      dataDigest: dataDigest(secret.data!),
    });
    expect(JSON.stringify(kept)).to.not.include(secret.data!['AWS_ACCESS_KEY_ID']!);
    expect(JSON.stringify(kept).length, 'no data, no tenant labels or annotations').to.be.below(700);
  });

  const dropped: [string, (secret: V1Secret) => void][] = [
    ['without the label', (secret) => (secret.metadata!.labels = { team: 'reports' })],
    ['labelled with a request that does not exist', (secret) => (secret.metadata!.labels![REQUEST_LABEL] = 'other')],
    ["of another name than the request's secretRef", (secret) => (secret.metadata!.name = 'decoy')],
    [
      'owned by another UID (a request deleted and re-created)',
      (secret) => (secret.metadata!.ownerReferences![0]!.uid = 'uid-0'),
    ],
    [
      'whose owner reference is not the controller',
      (secret) => (secret.metadata!.ownerReferences![0]!.controller = false),
    ],
    ['without an owner', (secret) => delete secret.metadata!.ownerReferences],
    ['of another type', (secret) => (secret.type = 'kubernetes.io/dockerconfigjson')],
    ['in another namespace', (secret) => (secret.metadata!.namespace = 'tenant-a')],
  ];
  for (const [what, edit] of dropped)
    it(`keeps nothing of a Secret ${what}`, () => {
      const secret = served();
      edit(secret);
      expect(keep(secret)).to.equal(undefined);
    });

  it("does not differ from the desired Secret when listed: client-node's owner reference models kept as plain JSON", () => {
    const listed = served();
    listed.metadata!.ownerReferences = listed.metadata!.ownerReferences!.map((owner) =>
      Object.assign(new V1OwnerReference(), owner),
    );
    const desired = desiredSecret(
      REQUEST,
      { AWS_ACCESS_KEY_ID: 'ASIA', AWS_SECRET_ACCESS_KEY: 'x'.repeat(4096) },
      expires,
    );
    expect(secretDiffers(keep(listed)!, desired)).to.equal(false);
  });

  it('differs from the desired Secret when data, our label, our annotation or the owner differ; not for what others add', () => {
    const desired = desiredSecret(
      REQUEST,
      { AWS_ACCESS_KEY_ID: 'ASIA', AWS_SECRET_ACCESS_KEY: 'x'.repeat(4096) },
      expires,
    );
    const kept = keep(served())!;
    expect(secretDiffers(kept, desired), 'others added a label and an annotation').to.equal(false);
    const edits: [string, (secret: KeptSecret) => void][] = [
      ['data', (secret) => (secret.dataDigest = dataDigest({ AWS_ACCESS_KEY_ID: 'QUtJQU1JTkU=' }))],
      ['label', (secret) => (secret.metadata.labels[REQUEST_LABEL] = 'other')],
      ['annotation', (secret) => (secret.metadata.annotations = { [EXPIRES_ANNOTATION]: '2099-01-01T00:00:00Z' })],
      ['no annotation', (secret) => delete secret.metadata.annotations],
      ['owner', (secret) => (secret.metadata.ownerReferences = [])],
    ];
    for (const [what, edit] of edits) {
      const changed = structuredClone(kept);
      edit(changed);
      expect(secretDiffers(changed, desired), what).to.equal(true);
    }
  });
});
