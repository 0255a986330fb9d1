import type { Condition, ConditionReason, ConditionType, ConditionUpdate } from '@keymaster/api';
import { expect } from 'chai';
import { newFailures, readyCondition, setCondition } from '../../src/awscluster/conditions.js';

describe('conditions', () => {
  const allowed = {
    type: 'PrincipalUsageAllowed',
    status: 'True',
    reason: 'PrincipalUsageAllowed',
    message: 'ok',
  } as const;

  it('keeps lastTransitionTime while the status stays, and moves it when the status changes', () => {
    const first = setCondition([], allowed, 1, 't1');
    const again = setCondition(first, { ...allowed, message: 'still ok' }, 2, 't2');
    expect(again[0]).to.deep.include({ lastTransitionTime: 't1', observedGeneration: 2, message: 'still ok' });
    const refused = setCondition(again, { ...allowed, status: 'False', reason: 'PrincipalUsageUnauthorized' }, 2, 't3');
    expect(refused[0]).to.deep.include({ status: 'False', lastTransitionTime: 't3' });
    expect(refused).to.have.length(1);
  });

  it('escapes control and bidirectional characters of messages, whoever built them, and keeps them stable', () => {
    const [set] = setCondition([], { ...allowed, message: 'key "tenant\u202e" refused\nfake line' }, 1, 't1');
    expect(set?.message).to.equal('key "tenant\\u202e" refused\\u000afake line');
    const again = setCondition([set!], { ...allowed, message: set!.message }, 1, 't2');
    expect(again[0]).to.deep.equal(set);
  });

  it('Ready is True only when every input is, and else carries the first failing reason', () => {
    let conditions: Condition[] = [];
    expect(readyCondition(conditions)).to.deep.include({ status: 'Unknown', reason: 'Reconciling' });
    for (const type of ['PrincipalUsageAllowed', 'PrincipalCredentialRetrieved', 'TagsInSync'] as const) {
      conditions = setCondition(
        conditions,
        { type, status: 'True', reason: type, message: '' } as ConditionUpdate,
        1,
        't',
      );
    }
    expect(readyCondition(conditions)).to.deep.include({ status: 'True', reason: 'Ready' });
    conditions = setCondition(
      conditions,
      { type: 'ClusterNameUnique', status: 'False', reason: 'DuplicateClusterName', message: '' },
      1,
      't',
    );
    expect(readyCondition(conditions).status, 'a duplicate name is a warning').to.equal('True');
    conditions = setCondition(
      conditions,
      { type: 'TagsInSync', status: 'False', reason: 'TagLimitExceeded', message: '51 tags' },
      1,
      't',
    );
    expect(readyCondition(conditions)).to.deep.equal({
      type: 'Ready',
      status: 'False',
      reason: 'TagLimitExceeded',
      message: '51 tags',
    });
  });

  it('Ready is False when any input is False, even after one that is Unknown, and Unknown only while nothing failed', () => {
    const update = (type: ConditionType, status: 'True' | 'False' | 'Unknown', reason: ConditionReason) =>
      ({ type, status, reason, message: `${type} ${reason}` }) as ConditionUpdate;
    let conditions = [
      update('PrincipalUsageAllowed', 'Unknown', 'IdentityNotFound'),
      update('PrincipalCredentialRetrieved', 'False', 'IdentityNotFound'),
      update('TagsInSync', 'Unknown', 'CredentialsUnavailable'),
    ].reduce<Condition[]>((set, item) => setCondition(set, item, 1, 't'), []);
    expect(readyCondition(conditions)).to.deep.equal({
      type: 'Ready',
      status: 'False',
      reason: 'IdentityNotFound',
      message: 'PrincipalCredentialRetrieved IdentityNotFound',
    });
    conditions = setCondition(conditions, update('PrincipalCredentialRetrieved', 'Unknown', 'NotAttempted'), 1, 't');
    expect(readyCondition(conditions), 'nothing definite yet').to.deep.include({
      status: 'Unknown',
      reason: 'IdentityNotFound',
    });
  });
});

describe('newFailures', () => {
  const condition = (type: ConditionUpdate['type'], status: ConditionUpdate['status'], reason: ConditionReason) =>
    setCondition([], { type, status, reason, message: `${type} ${reason}` } as ConditionUpdate, 1, 't')[0]!;
  const usage = (status: ConditionUpdate['status'], reason: ConditionReason) =>
    condition('PrincipalUsageAllowed', status, reason);

  it('names an actionable condition that has just become False, or False for another reason', () => {
    expect(newFailures([usage('True', 'PrincipalUsageAllowed')], [usage('False', 'PrincipalUsageUnauthorized')]))
      .to.have.lengthOf(1)
      .and.to.deep.include(usage('False', 'PrincipalUsageUnauthorized'));
    expect(newFailures([], [condition('PrincipalCredentialRetrieved', 'False', 'AssumeRoleFailed')])).to.have.lengthOf(
      1,
    );
    expect(
      newFailures([usage('False', 'PrincipalUsageUnauthorized')], [usage('False', 'SourcePrincipalUsageUnauthorized')]),
    ).to.have.lengthOf(1);
  });

  it('names nothing when the failure was already there (a resync), nor for conditions with events of their own', () => {
    expect(newFailures([usage('False', 'PrincipalUsageUnauthorized')], [usage('False', 'PrincipalUsageUnauthorized')]))
      .to.be.empty;
    expect(newFailures([], [condition('TagsInSync', 'False', 'TaggingFailed')])).to.be.empty;
    expect(newFailures([], [condition('Ready', 'False', 'AssumeRoleFailed')])).to.be.empty;
  });
});
