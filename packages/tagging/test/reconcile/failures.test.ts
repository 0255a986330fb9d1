import { expect } from 'chai';
import { TaggingAccessDeniedError, type TagReconcileResult } from '../../src/index.js';
import { owned } from '../fixtures.js';
import { ACCOUNT, clusterInstances, instance, REGIONS, TAGGER_KEYS, taggingWorld } from '../support/aws-world.js';
import { EFFECTIVE_VALUES, startHarness, type Harness } from '../support/harness.js';

const [EAST, WEST, SYDNEY] = REGIONS;
const PER_REGION = 60;
const INTERNAL = { StatusCode: 500, ErrorCode: 'InternalServiceException', ErrorMessage: 'Internal error' };

const everywhere = () => REGIONS.flatMap((region) => clusterInstances(region, PER_REGION));
/** Managed policies of the tagger, by name. */
const policy = (name: string, statements: object[]) => ({
  arn: `arn:aws:iam::${ACCOUNT}:policy/${name}`,
  document: { Version: '2012-10-17', Statement: statements },
});

/** The ARNs of each TagResources request Keymaster made in `region` (before the faults take any out), in order. */
const tagCalls = (h: Harness, region: string) =>
  h.faults.writes
    .filter((call) => call.command === 'TagResourcesCommand' && call.region === region)
    .map(({ arns }) => arns);

const kinds = (result: TagReconcileResult) => [...new Set(result.failed.map(({ kind }) => kind))];

describe('reconcileTags when AWS fails, refuses or forgets', function () {
  this.timeout(30_000);
  let h: Harness;
  afterEach(() => h.stop());

  describe('partial failures', () => {
    beforeEach(async () => {
      h = await startHarness(taggingWorld(everywhere()));
    });

    it('sends again only the ARNs of FailedResourcesMap, merged into as few calls, then verifies them', async () => {
      const flaky = [1, 2, 25, 45, 50].map((i) => instance(EAST, i));
      h.faults.fail(flaky, INTERNAL, 2);
      const result = await h.reconcile();

      const calls = tagCalls(h, EAST);
      expect(calls.map((arns) => arns.length)).to.deep.equal([20, 20, 20, 5, 5]);
      expect(calls.slice(3)).to.deep.equal([flaky, flaky]);
      // What reached AWS: the first three calls less the failing ARNs, then the five alone, once.
      expect(h.recent('tag:TagResources').filter((call) => call.region === EAST)).to.have.length(4);
      expect(tagCalls(h, WEST)).to.have.length(3);
      for (const arn of flaky) expect(h.resources().get(arn)).to.include(EFFECTIVE_VALUES);
      expect(result.synced).to.equal(true);
      expect(result.status).to.include({ resourcesInSync: 180, resourcesFailed: 0 });
    });

    it('reports ARNs that fail on every attempt with AWS’s code and the action, never as in sync', async () => {
      const broken = [instance(WEST, 7), instance(WEST, 8)];
      h.faults.fail(broken, INTERNAL);
      const result = await h.reconcile({ retry: { maxAttempts: 3 } });

      expect(result.failed).to.deep.equal(
        broken.map((arn) => ({
          arn,
          region: WEST,
          action: 'tag:TagResources',
          kind: 'Unavailable',
          code: 'InternalServiceException',
          message: 'Internal error',
          keys: ['cost-center', 'red-hat-managed', 'team'],
        })),
      );
      expect(tagCalls(h, WEST).slice(3)).to.deep.equal([broken, broken]);
      expect(result.synced).to.equal(false);
      expect(result.status).to.include({ resourcesInSync: 178, resourcesFailed: 2 });
      expect(result.applied.map(({ arn }) => arn)).to.not.include.members(broken);
      expect(result.events.find(({ reason }) => reason === 'TaggingFailed')).to.deep.equal({
        type: 'Warning',
        reason: 'TaggingFailed',
        message:
          `tag:TagResources failed for 2 resources in account ${ACCOUNT}, region ${WEST}: ` +
          `InternalServiceException: Internal error (${broken.join(', ')})`,
      });
    });

    it('does not take AWS’s word: a write reported done that reading back does not show is NotVerified', async () => {
      const lost = instance(SYDNEY, 11);
      h.faults.drop([lost]);
      const result = await h.reconcile();

      expect(h.resources().get(lost)).to.not.have.property('team');
      expect(result.failed).to.deep.equal([
        {
          arn: lost,
          region: SYDNEY,
          action: 'tag:TagResources',
          kind: 'NotVerified',
          code: 'NotVerified',
          message:
            'TagResources succeeded but GetResources shows cost-center is missing, not "1000", ' +
            'red-hat-managed is missing, not "true", team is missing, not "analytics"',
          keys: ['cost-center', 'red-hat-managed', 'team'],
        },
      ]);
      expect(result.status).to.include({ resourcesInSync: 179, resourcesFailed: 1 });
      expect(result.events.map(({ reason }) => reason)).to.deep.equal(['TagsApplied', 'TagsNotVerified']);
    });
    it('never reports in sync what it could not read back', async () => {
      h.faults.failReads('AccessDeniedException', 'User: tagger is not authorized to perform: tag:GetResources');
      const result = await h.reconcile({ regions: [EAST] });

      expect(h.calls('tag:TagResources')).to.equal(3);
      expect(result.applied).to.deep.equal([]);
      expect(result.failed).to.have.length(PER_REGION);
      expect(result.failed[0]).to.deep.include({ kind: 'NotVerified', code: 'AccessDeniedException' });
      expect(result.failed[0]!.message).to.equal(
        `TagResources succeeded but reading the tags back failed: tag:GetResources failed in account ${ACCOUNT}, ` +
          `region ${EAST}: AccessDeniedException: User: tagger is not authorized to perform: tag:GetResources`,
      );
      expect(result.status).to.include({ resourcesInSync: 0, resourcesFailed: PER_REGION });
      expect(result.synced).to.equal(false);
    });
  });

  describe('gone resources', () => {
    beforeEach(async () => {
      h = await startHarness(taggingWorld(everywhere()));
    });

    it('reports resources GetResources still lists but that no longer exist as gone, not failed', async () => {
      const ghostInstance = instance(EAST, 0xdead);
      const ghostBalancer = `arn:aws:elasticloadbalancing:${WEST}:${ACCOUNT}:loadbalancer/app/gone/0123456789abcdef`;
      h.faults.ghosts({ [ghostInstance]: owned(), [ghostBalancer]: owned() });
      const result = await h.reconcile();

      expect(result.gone).to.deep.equal([
        {
          arn: ghostInstance,
          region: EAST,
          code: 'InvalidInstanceID.NotFound',
          message: "The instance ID 'i-0000000000000dead' does not exist",
        },
        {
          arn: ghostBalancer,
          region: WEST,
          code: 'InvalidParameterException',
          message: `The resource ${ghostBalancer} does not exist.`,
        },
      ]);
      expect(result.failed).to.deep.equal([]);
      expect(result.synced).to.equal(true);
      expect(result.plan.resources).to.have.length(182);
      expect(result.status).to.include({ resourcesDiscovered: 180, resourcesInSync: 180, resourcesFailed: 0 });
      // Gone is an answer, not a failure: nothing is sent again.
      expect(tagCalls(h, EAST)).to.have.length(Math.ceil((PER_REGION + 1) / 20));
    });
  });

  describe('access denied', () => {
    it('classifies a per-ARN AccessDeniedException with the action, and does not retry it', async () => {
      const notSydney = policy('TagOutsideSydney', [
        { Effect: 'Allow', Action: 'ec2:CreateTags', Resource: [`arn:aws:ec2:${EAST}:*`, `arn:aws:ec2:${WEST}:*`] },
      ]);
      h = await startHarness(taggingWorld(everywhere(), { allow: ['tag:*'], policies: [notSydney] }));
      const result = await h.reconcile();

      expect(tagCalls(h, SYDNEY)).to.have.length(3);
      expect(result.failed).to.have.length(PER_REGION);
      expect(kinds(result)).to.deep.equal(['AccessDenied']);
      expect(result.failed[0]).to.deep.include({
        region: SYDNEY,
        action: 'tag:TagResources',
        code: 'AccessDeniedException',
      });
      expect(result.failed[0]!.message).to.contain('is not authorized to perform: ec2:CreateTags');
      expect(result.status).to.include({ resourcesInSync: 120, resourcesFailed: 60 });
      const denied = result.events.find(({ reason }) => reason === 'TaggingAccessDenied')!;
      expect(denied.type).to.equal('Warning');
      expect(denied.message).to.match(
        new RegExp(
          `^tag:TagResources failed for 60 resources in account ${ACCOUNT}, region ${SYDNEY}: AccessDeniedException: `,
        ),
      );
      expect(denied.message).to.contain('and 57 more');
    });

    it('classifies a whole call refused the same way', async () => {
      h = await startHarness(taggingWorld(everywhere(), { allow: ['tag:GetResources'] }));
      const result = await h.reconcile();
      expect(h.calls('tag:TagResources')).to.equal(9);
      expect(result.failed).to.have.length(180);
      expect(kinds(result)).to.deep.equal(['AccessDenied']);
      expect(new Set(result.failed.map(({ action, code }) => `${action} ${code}`))).to.deep.equal(
        new Set(['tag:TagResources AccessDeniedException']),
      );
      expect(result.events.filter(({ reason }) => reason === 'TaggingAccessDenied')).to.have.length(3);
    });

    it('throws TaggingAccessDeniedError naming tag:GetResources, the account and the region when discovery is refused', async () => {
      h = await startHarness(taggingWorld(everywhere(), { allow: ['tag:TagResources'] }));
      const error = await h.reconcile().then(
        () => expect.fail('discovery should have been refused'),
        (refusal: unknown) => refusal,
      );
      expect(error).to.be.instanceOf(TaggingAccessDeniedError);
      const denied = error as TaggingAccessDeniedError;
      expect(denied).to.include({
        code: 'ERR_KEYMASTER_TAGGING_ACCESS_DENIED',
        action: 'tag:GetResources',
        accountId: ACCOUNT,
        awsCode: 'AccessDeniedException',
      });
      expect(REGIONS).to.include(denied.region);
      expect(denied.message).to.match(
        new RegExp(`^tag:GetResources failed in account ${ACCOUNT}, region ${denied.region}: AccessDeniedException: `),
      );
      expect(denied.hint).to.equal(
        `Allow tag:GetResources to the cluster's identity in account ${ACCOUNT}, or drop region ${denied.region} from spec.tagging.extraRegions.`,
      );
      expect(`${denied.message} ${denied.hint}`).to.not.contain(TAGGER_KEYS.secretAccessKey);
      expect(h.calls('tag:TagResources')).to.equal(0);
    });
  });

  describe('dry run', () => {
    beforeEach(async () => {
      h = await startHarness(taggingWorld(everywhere()));
    });

    it('discovers and plans, and writes nothing', async () => {
      const before = h.resources();
      const managedTags = { 'cost-center': '900' };
      const result = await h.reconcile({ dryRun: true, managedTags });

      expect(h.calls('tag:TagResources') + h.calls('tag:UntagResources')).to.equal(0);
      expect(h.resources()).to.deep.equal(before);
      expect(result.requests).to.have.keys(['tag:GetResources']);
      expect(result.plan.resources.filter(({ outcome }) => outcome === 'Change')).to.have.length(180);
      expect(result).to.deep.include({ dryRun: true, synced: false, applied: [], failed: [], gone: [], events: [] });
      expect(result.status).to.deep.include({
        resourcesDiscovered: 180,
        resourcesInSync: 0,
        resourcesDrifted: 180,
        resourcesFailed: 0,
        managedTags,
      });
    });
  });
});
