import { API_VERSION } from '@keymaster/api';
import { expect } from 'chai';
import { condition, eventually, startPlatform, type Platform } from './harness.js';

// U+202E (right-to-left override) makes `kubectl describe` show the rest of a line backwards.
const RLO = '\u202e';

describe('tenant input in events and conditions, against both emulators', function () {
  this.timeout(60_000);
  let platform: Platform;
  before(async () => {
    platform = await startPlatform([
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-x' } },
      {
        apiVersion: API_VERSION,
        kind: 'AWSClusterControllerIdentity',
        metadata: { name: 'default' },
        spec: { allowedNamespaces: {} },
      },
      {
        apiVersion: API_VERSION,
        kind: 'AWSCluster',
        metadata: { name: 'prod', namespace: 'team-x' },
        // The CRD lets it through (map keys are checked for ASCII punctuation only); tagging refuses it.
        spec: { region: 'us-west-2', additionalTags: { [`tenant${RLO}dlo`]: 'x', team: 'x' } },
      },
    ]);
  });
  after(() => platform.stop());

  it('shows a refused key with a right-to-left override as \\u202e, never raw', async () => {
    const tagsInSync = await eventually(async () => {
      const found = condition(await platform.cluster('team-x', 'prod'), 'TagsInSync');
      expect(found?.status).to.equal('True');
      return found!;
    });
    expect(tagsInSync.message).to.contain('key "tenant\\u202edlo"').and.not.contain(RLO);
    const event = await eventually(async () => {
      const { items } = await platform.core.listNamespacedEvent({ namespace: 'team-x' });
      const found = items.find(({ reason }) => reason === 'InvalidTags');
      expect(found).to.not.equal(undefined);
      return found!;
    });
    expect(event.message).to.contain('key "tenant\\u202edlo"').and.not.contain(RLO);
  });
});
