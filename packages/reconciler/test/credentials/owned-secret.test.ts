import type { V1Secret } from '@kubernetes/client-node';
import { expect } from 'chai';
import { API_VERSION } from '@keymaster/api';
import {
  dataDigest,
  desiredSecret,
  EXPIRES_ANNOTATION,
  ownedBy,
  REQUEST_LABEL,
  restoredSecret,
} from '../../src/credentials/owned-secret.js';
import { REQUEST } from './request.js';

const expires = new Date('2026-11-23T12:00:00Z');

describe('the Secret a request owns', () => {
  it('is written in the request namespace, labelled, annotated with the expiry and owned by the request', () => {
    const secret = desiredSecret(REQUEST, { AWS_ACCESS_KEY_ID: 'ASIA' }, expires);
    expect(secret.metadata).to.deep.include({
      name: 'reports-aws',
      namespace: 'tenant-b',
      labels: { [REQUEST_LABEL]: 'reports' },
      annotations: { [EXPIRES_ANNOTATION]: '2026-11-23T12:00:00.000Z' },
    });
    expect(secret.metadata!.ownerReferences).to.deep.equal([
      {
        apiVersion: API_VERSION,
        kind: 'AWSCredentialsRequest',
        name: 'reports',
        uid: 'uid-1',
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(secret.data).to.deep.equal({ AWS_ACCESS_KEY_ID: Buffer.from('ASIA').toString('base64') });
    expect(ownedBy(secret, REQUEST)).to.equal(true);
  });

  it('is owned only with this UID as controlling owner, and only when Opaque', () => {
    const secret = desiredSecret(REQUEST, {}, undefined);
    expect(
      ownedBy(secret, { ...REQUEST, metadata: { ...REQUEST.metadata, uid: 'uid-2' } }),
      'a re-created request',
    ).to.equal(false);
    const notController = structuredClone(secret);
    notController.metadata!.ownerReferences![0]!.controller = false;
    expect(ownedBy(notController, REQUEST)).to.equal(false);
    const docker = structuredClone(secret);
    docker.type = 'kubernetes.io/dockerconfigjson';
    expect(ownedBy(docker, REQUEST)).to.equal(false);
    const unowned: V1Secret = { metadata: { name: 'reports-aws', labels: { [REQUEST_LABEL]: 'reports' } } };
    expect(ownedBy(unowned, REQUEST)).to.equal(false);
  });

  it('is set back to what the request decides, keeping the labels and annotations others added and the resourceVersion', () => {
    const desired = desiredSecret(REQUEST, { AWS_ACCESS_KEY_ID: 'ASIA' }, expires);
    const edited = structuredClone(desired);
    edited.metadata!.resourceVersion = '7';
    edited.metadata!.labels!['team'] = 'reports';
    edited.metadata!.annotations!['note'] = 'mine';
    edited.data!['AWS_ACCESS_KEY_ID'] = Buffer.from('AKIAMINE').toString('base64');
    edited.data!['extra'] = Buffer.from('added').toString('base64');
    edited.metadata!.annotations![EXPIRES_ANNOTATION] = '2099-01-01T00:00:00Z';
    const restored = restoredSecret(edited, desired);
    expect(restored.data).to.deep.equal(desired.data);
    expect(restored.metadata!.labels).to.deep.equal({ [REQUEST_LABEL]: 'reports', team: 'reports' });
    expect(restored.metadata!.annotations).to.deep.equal({
      note: 'mine',
      [EXPIRES_ANNOTATION]: '2026-11-23T12:00:00.000Z',
    });
    expect(restored.metadata!.ownerReferences).to.deep.equal(desired.metadata!.ownerReferences);
    expect(restored.metadata!.resourceVersion).to.equal('7');
  });

  it('digests data whatever the order of its keys', () => {
    expect(dataDigest({ a: '1', b: '2' })).to.equal(dataDigest({ b: '2', a: '1' }));
    expect(dataDigest({ a: '1' })).not.to.equal(dataDigest({ a: '2' }));
  });
});
