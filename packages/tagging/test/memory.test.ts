import { expect } from 'chai';
import { fingerprint } from '../src/memory.js';

describe('fingerprint', () => {
  // Memory tags already on AWS resources hold these: a change would make Keymaster forget what it wrote.
  it('gives the fingerprints Keymaster has always written, asked once or many times', () => {
    for (let round = 0; round < 2; round++) {
      expect(fingerprint('cost-center', '1000')).to.equal('I6-D');
      expect(fingerprint('team', 'analytics')).to.equal('eoFf');
      expect(fingerprint('ключ', 'значение')).to.equal('e6KP');
    }
  });

  it('tells a key from a value: the separator keeps "a" + "bc" apart from "ab" + "c"', () => {
    expect(fingerprint('a', 'bc')).to.not.equal(fingerprint('ab', 'c'));
  });
});
