import { API_VERSION } from '@keymaster/api';
import { expect } from 'chai';
import { withoutLegacyOwner } from '../../src/awsclusteridentity/legacy-owner.js';

const legacy = { apiVersion: API_VERSION, kind: 'AWSClusterStaticIdentity', name: 'tenant-a', uid: 'u-1' };

describe('withoutLegacyOwner', () => {
  it('removes the reference earlier releases wrote, and only it', () => {
    const holder = { apiVersion: 'v1', kind: 'ConfigMap', name: 'holder', uid: 'u-2' };
    expect(withoutLegacyOwner([holder, legacy], 'tenant-a')).to.deep.equal([holder]);
    expect(withoutLegacyOwner([legacy], 'tenant-a')).to.deep.equal([]);
  });

  it('says there is nothing to remove when no reference is ours, so that nothing is written', () => {
    expect(withoutLegacyOwner([], 'tenant-a')).to.equal(undefined);
    for (const theirs of [
      { ...legacy, apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2' }, // CAPA's kind of the same name
      { ...legacy, name: 'tenant-b' }, // another identity's: its own reconcile removes it
      { ...legacy, controller: true }, // set by someone else: releases never set controller
      { ...legacy, blockOwnerDeletion: true },
    ])
      expect(withoutLegacyOwner([theirs], 'tenant-a'), JSON.stringify(theirs)).to.equal(undefined);
  });
});
