import { validateObject } from '@keymaster/api';
import { expect } from 'chai';
import type { TagFailure } from '../../src/index.js';
import { taggingStatus } from '../../src/report/status.js';
import { cluster, instanceArn, owned, planFor } from '../fixtures.js';

const full = Object.fromEntries(Array.from({ length: 49 }, (_, i) => [`other-${i}`, 'x']));
const managedTags = { team: 'old', legacy: 'x' };
const plan = planFor({
  clusterTags: { team: 'a' },
  managedTags,
  removalPolicy: 'Delete',
  resources: {
    [instanceArn('i-change')]: { ...owned(), team: 'old', legacy: 'x' },
    [instanceArn('i-failed')]: { ...owned(), team: 'old', legacy: 'x' },
    [instanceArn('i-gone')]: owned(),
    [instanceArn('i-sync')]: { ...owned(), team: 'a' },
    [instanceArn('i-full')]: { ...owned(), ...full },
  },
});
const removalDenied: TagFailure = {
  arn: instanceArn('i-failed'),
  region: 'eu-west-1',
  action: 'tag:UntagResources',
  kind: 'AccessDenied',
  code: 'AccessDeniedException',
  message: 'not authorized',
  keys: ['legacy'],
};
const gone = [{ arn: instanceArn('i-gone'), region: 'eu-west-1', code: 'InvalidInstanceID.NotFound', message: '' }];

describe('taggingStatus', () => {
  it('counts what was verified as in sync, what still differs as drifted, and what failed or is over the limit as failed; gone resources not at all', () => {
    expect(taggingStatus(plan, { failed: [removalDenied], gone, dryRun: false }, managedTags)).to.deep.equal({
      resourcesDiscovered: 4,
      resourcesInSync: 2,
      resourcesDrifted: 2,
      resourcesFailed: 2,
      conflicts: [],
      // legacy's removal failed somewhere: it stays managed, with the value applied, so the next pass removes it.
      managedTags: { legacy: 'x', team: 'a' },
    });
  });

  it('drops a removed key from managedTags once every removal went through', () => {
    expect(taggingStatus(plan, { failed: [], gone, dryRun: false }, managedTags).managedTags).to.deep.equal({
      team: 'a',
    });
  });

  it('keeps the managedTags given after a dry run, and counts in sync only what already was', () => {
    expect(taggingStatus(plan, { failed: [], gone: [], dryRun: true }, managedTags)).to.deep.include({
      resourcesDiscovered: 5,
      resourcesInSync: 1,
      resourcesFailed: 1,
      managedTags,
    });
  });

  it("fits the AWSCluster's status.tagging", () => {
    const status = { tagging: taggingStatus(plan, { failed: [removalDenied], gone, dryRun: false }, managedTags) };
    expect(validateObject({ ...cluster({ team: 'a' }), status })).to.deep.equal([]);
  });
});
