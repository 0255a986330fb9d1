import { expect } from 'chai';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { testEnvCacheDir } from '../src/cache.js';

describe('testEnvCacheDir', () => {
  it('is keymaster/testenv under XDG_CACHE_HOME', () => {
    expect(testEnvCacheDir({ XDG_CACHE_HOME: '/var/cache/ci' })).to.equal('/var/cache/ci/keymaster/testenv');
  });

  it('falls back to ~/.cache when XDG_CACHE_HOME is unset or empty, as the provisioning scripts do', () => {
    const fallback = join(homedir(), '.cache', 'keymaster', 'testenv');
    expect(testEnvCacheDir({})).to.equal(fallback);
    expect(testEnvCacheDir({ XDG_CACHE_HOME: '' })).to.equal(fallback);
  });
});
