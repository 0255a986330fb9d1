import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { blake2b } from '../../src/adoption/blake2b.js';
import { defaultEksClusterName } from '../../src/adoption/eks-name.js';

describe('defaultEksClusterName', () => {
  it('is <namespace>_<name> with dots made _, as CAPA v2.13 (its webhook test: default_team1_cluster1)', () => {
    expect(defaultEksClusterName('team1.cluster1', 'default')).to.equal('default_team1_cluster1');
  });

  // The expected names were computed with CAPA's GenerateEKSName (Go, golang.org/x/crypto/blake2b).
  it('is capa_ and a 27-character BLAKE2b digest from 100 characters on', () => {
    expect(defaultEksClusterName('b'.repeat(50), 'a'.repeat(60))).to.equal('capa_k15p5ptsmez07t3qmeyfu0msost');
    expect(defaultEksClusterName(`${'x'.repeat(95)}-control-plane`, 'tenant-a')).to.equal(
      'capa_3g9nbi70ktcy71al61qwn30z1k3',
    );
  });

  it('keeps a name of 99 characters', () => {
    const name = defaultEksClusterName('c'.repeat(89), 'ns-x');
    expect(name).to.have.length(94);
    expect(defaultEksClusterName('c'.repeat(94), 'ns-x')).to.have.length(99);
  });
});

describe('blake2b', () => {
  it("is Node's BLAKE2b-512 at 64 bytes, over zero, one and several blocks", () => {
    for (const length of [0, 1, 127, 128, 129, 300]) {
      const input = new Uint8Array(length).map((_, i) => i % 251);
      expect(Buffer.from(blake2b(input, 64)).toString('hex'), `${length} bytes`).to.equal(
        createHash('blake2b512').update(input).digest('hex'),
      );
    }
  });
});
