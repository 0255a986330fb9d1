import { expect } from 'chai';
import { setTimeout as sleep } from 'node:timers/promises';
import { startAdmissionPlatform } from './harness.js';

/** Watches of folders open in this process (fs.watch handles). */
const folderWatches = () => process.getActiveResourcesInfo().filter((name) => name === 'FSEventWrap').length;

describe('keymaster run with webhooks: stop', function () {
  this.timeout(60_000);

  it('closes the watch of the certificate folder with the server (a watch left open keeps the process alive)', async () => {
    const before = folderWatches();
    const platform = await startAdmissionPlatform([]);
    expect(folderWatches()).to.equal(before + 1);
    await platform.stop();
    // A closed handle leaves the list at the event loop's next turn.
    await sleep(20);
    expect(folderWatches()).to.equal(before);
  });
});
