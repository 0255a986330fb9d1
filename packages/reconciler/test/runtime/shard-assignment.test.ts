import { expect } from 'chai';
import { fairShare, shardOf } from '../../src/runtime/shard-assignment.js';

describe('shard assignment', () => {
  describe('shardOf', () => {
    it('is FNV-1a (32 bits) of the key: these values must never change (replicas of different versions must agree)', () => {
      const everyHash = 2 ** 32;
      // The specification's test vectors.
      expect(shardOf('', everyHash)).to.equal(0x811c9dc5);
      expect(shardOf('a', everyHash)).to.equal(0xe40c292c);
      expect(shardOf('foobar', everyHash)).to.equal(0xbf9cf968);
      // Keys as the controller makes them, computed apart by a Python FNV-1a that gives those vectors.
      expect(shardOf('tenant-a/cluster-0', everyHash)).to.equal(3487343331);
      expect(shardOf('é/ü', everyHash), 'UTF-8 bytes, not UTF-16 units').to.equal(1364566485);
      expect(shardOf('tenant-a/cluster-0', 3)).to.equal(0);
      expect(shardOf('tenant-b/prod', 16)).to.equal(10);
    });

    it('spreads keys evenly', () => {
      const counts = [0, 0, 0];
      for (let index = 0; index < 9000; index += 1) counts[shardOf(`cluster-${index}`, 3)]! += 1;
      for (const count of counts) expect(count).to.be.within(2800, 3200);
    });
  });

  describe('fairShare', () => {
    it('splits the shards evenly, each shard preferred by exactly one replica', () => {
      for (const [shards, replicas] of [
        [6, 3],
        [7, 3],
        [2, 3],
        [1, 1],
        [16, 5],
      ] as const) {
        const names = Array.from({ length: replicas }, (_, index) => `replica-${index}`);
        const shares = names.map((name) => fairShare(shards, names, name));
        const quotas = shares.map(({ quota }) => quota);
        expect(
          quotas.reduce((sum, quota) => sum + quota, 0),
          `${shards}/${replicas}`,
        ).to.equal(shards);
        expect(Math.max(...quotas) - Math.min(...quotas)).to.be.at.most(1);
        expect(shares.flatMap(({ preferred }) => preferred).sort((a, b) => a - b)).to.deep.equal(
          Array.from({ length: shards }, (_, shard) => shard),
        );
      }
    });

    it('counts the replica asking even when it is not in the list yet (just started)', () => {
      expect(fairShare(4, ['b'], 'a')).to.deep.equal({ quota: 2, preferred: [0, 2] });
      expect(fairShare(4, [], 'a')).to.deep.equal({ quota: 4, preferred: [0, 1, 2, 3] });
    });
  });
});
