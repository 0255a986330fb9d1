import { characterCount, type TagConflict, type TagPlanChange } from '@keymaster/api';
import { loadYaml } from '@kubernetes/client-node';
import type { TagPlan } from '@keymaster/tagging';
import { expect } from 'chai';
import type { ClusterPlanReport } from '../../src/inspect/cluster-plan.js';
import { elide, LINE_WIDTH, wrap } from '../../src/inspect/line-width.js';
import { renderPlans } from '../../src/inspect/plan-output.js';

const ACCOUNT = '444455556666';
const LONG_VALUE = `cost-center:${'x'.repeat(120)}:end-of-value`;
const LONG_KEY = `example.com/${'k'.repeat(110)}/last`;
const ROLE = `arn:aws:sts::${ACCOUNT}:assumed-role/${'platform-engineering-role-'.repeat(2)}x/${'keymaster-session-'.repeat(3)}z`;
const ELB = `arn:aws:elasticloadbalancing:eu-west-1:${ACCOUNT}:loadbalancer/app/${'analytics-apiserver-'.repeat(5)}lb/50dc6c495c0c9188`;
const instance = (region: string, id: number) =>
  `arn:aws:ec2:${region}:${ACCOUNT}:instance/i-0${id.toString(16).padStart(16, '0')}`;

const SUMMARY = {
  resourcesDiscovered: 14,
  resourcesInSync: 1,
  resourcesDrifted: 13,
  resourcesOverLimit: 1,
  resourcesSkipped: 0,
  tagsToAdd: 50,
  tagsToUpdate: 2,
  tagsToRemove: 1,
  tagsWithheld: 1,
  conflicts: 1,
};

const cluster = { layer: 'Cluster', object: 'AWSCluster tenant-b/analytics-prod' } as const;
const account = { layer: 'Account', object: 'AWSClusterRoleIdentity/tenant-b' } as const;
const global = { layer: 'Global', object: 'AWSTagPolicy/default' } as const;

/** The same four keys added to a resource, as the layers give them. */
const added = (resource: string): TagPlanChange[] => [
  { resource, key: 'cost-center', action: 'Add', to: LONG_VALUE, ...global },
  { resource, key: 'environment', action: 'Add', to: 'production', ...cluster },
  { resource, key: LONG_KEY, action: 'Add', to: 'yes', ...cluster },
  { resource, key: 'tenant', action: 'Add', to: 'tenant-b', ...account },
];

const CONFLICTS: TagConflict[] = [
  {
    key: 'tenant',
    winner: { ...account, value: 'tenant-b', overridePolicy: 'Deny' },
    loser: { ...cluster, value: `analytics ${'and more words '.repeat(10)}` },
  },
];

/** Twelve resources in two regions and two services with one change, one drifted, one over the tag limit. */
const RESOURCES = [
  ...Array.from({ length: 8 }, (_, index) => instance('eu-west-1', index + 1)),
  ...Array.from({ length: 3 }, (_, index) => instance('eu-central-1', index + 100)),
  ELB,
];
const DRIFTED = instance('eu-west-1', 999);
const CHANGES: TagPlanChange[] = [
  ...RESOURCES.flatMap(added),
  {
    resource: DRIFTED,
    key: 'team',
    action: 'Update',
    from: `someone ${'else '.repeat(30)}`,
    to: LONG_VALUE,
    reason: 'Drift',
    ...cluster,
  },
  { resource: DRIFTED, key: 'old-key', action: 'Remove', from: 'stale', reason: 'Dropped' },
  { resource: DRIFTED, key: 'extra', action: 'Withhold', to: 'value', reason: 'TagLimit', ...global },
  { resource: DRIFTED, key: 'edited', action: 'Keep', from: 'by hand', reason: 'ChangedSince' },
];

const PLANNED: ClusterPlanReport = {
  cluster: 'tenant-b/analytics-prod',
  outcome: 'Planned',
  notes: ['spec.tagging.dryRun: the controller plans as here and applies nothing'],
  accountId: ACCOUNT,
  principalArn: ROLE,
  regions: ['eu-west-1', 'eu-central-1', 'us-east-1', 'us-west-2', 'ap-southeast-1', 'ap-northeast-1', 'sa-east-1'],
  summary: SUMMARY,
  changes: CHANGES,
  conflicts: CONFLICTS,
  problems: [`AWSCluster tenant-b/analytics-prod: tag "${LONG_KEY}" is left out: its value is not allowed`],
};

const REFUSED: ClusterPlanReport = {
  cluster: 'tenant-c/reporting-prod',
  outcome: 'Refused',
  notes: [],
  failure: {
    code: 'ERR_KEYMASTER_NAMESPACE_NOT_ALLOWED',
    message: `namespace "tenant-c" may not use AWSClusterRoleIdentity/${'tenant-b-'.repeat(8)}x`,
    hint: 'Add "tenant-c" to spec.allowedNamespaces of the identity (list or selector), or use another identity. Every link of a chain must allow the namespace.',
  },
};

/** A tenant's plan on its own machine: the tags of the layers it may read, what it could not check. */
const PARTIAL: ClusterPlanReport = {
  cluster: 'tenant-a/a-prod',
  outcome: 'Partial',
  notes: [],
  tags: {
    [LONG_KEY]: { ...cluster, value: LONG_VALUE },
    team: { ...cluster, value: 'a' },
  },
  conflicts: [{ key: 'team', winner: { ...cluster, value: 'a' }, loser: { ...account, value: LONG_VALUE } }],
  lastSync: { summary: '2/2', resourcesDrifted: 0, lastSyncTime: '2026-11-27T23:00:00Z' },
  unchecked: [
    {
      check: "the tags on AWS (a plan made with the cluster's own credentials)",
      code: 'ERR_KEYMASTER_FORBIDDEN',
      message:
        'cannot read Namespace tenant-a (its labels): namespaces "tenant-a" is forbidden: User "tenant-a-dev" cannot get resource "namespaces" in API group "" in the namespace "tenant-a"',
      hint: 'That takes get namespaces at the cluster scope, which your RBAC does not grant: ask the platform team for it if you need what it reads.',
    },
  ],
};

const EMPTY_PLAN: TagPlan = {
  clusterName: 'analytics-prod',
  removalPolicy: 'Retain',
  includeShared: false,
  tags: {},
  held: {},
  conflicts: [],
  problems: [],
  resources: [],
  ignoredBookkeepingKeys: [],
};

const table = (reports: ClusterPlanReport[]) => renderPlans(reports, 'table').split('\n');

describe('keymaster plan -o table: a diff of grouped resources, no line over 100 columns', () => {
  const lines = table([PLANNED, REFUSED]);

  it('prints no line wider than 100 characters for a plan of many resources with long values', () => {
    const wide = lines.filter((line) => characterCount(line) > LINE_WIDTH);
    expect(wide).to.deep.equal([]);
    // What it fits is there: the plan's every group and the refusal with its fix.
    expect(lines.join('\n')).to.include('tenant-c/reporting-prod: no plan (Refused)');
  });

  it('lists the resources with the identical change once, as one group under their ARN prefixes', () => {
    expect(lines).to.include('  12 resources, the same change:');
    const prefixes = lines.filter((line) => /^ {4}arn:/.test(line)).map((line) => line.split(' ')[4]);
    expect(prefixes).to.deep.equal([
      `arn:aws:ec2:eu-west-1:${ACCOUNT}:`,
      `arn:aws:ec2:eu-central-1:${ACCOUNT}:`,
      `arn:aws:elasticloadbalancing:eu-west-1:${ACCOUNT}:`,
    ]);
    const listed = lines.join(' ').match(/instance\/i-0[0-9a-f]{16}/g) ?? [];
    expect(listed, 'each resource once: eleven in the group, the drifted one alone').to.have.length(12);
    expect(new Set(listed).size).to.equal(12);
    // The one drifted resource, by its ARN, with its own changes.
    expect(lines).to.include(`  ${DRIFTED}`);
    expect(lines.filter((line) => line.includes('+ environment = "production"'))).to.have.length(1);
  });

  it('marks each change as a diff does, with why: the reason, the winning layer and object, the claim overridden', () => {
    const shown = lines.join('\n');
    expect(shown).to.match(/^ {4}~ team: "someone else else .*….*" -> "cost-center:x+…x*:end-of-value"$/m);
    expect(shown).to.match(/^ {8}# edited outside Keymaster; from Cluster \(AWSCluster tenant-b\/analytics-prod\)$/m);
    expect(shown).to.match(/^ {4}- old-key = "stale" +# no layer sets it$/m);
    expect(shown).to.match(/^ {4}! extra = "value" +# over the 50-tag limit; from Global \(AWSTagPolicy\/default\)$/m);
    expect(shown).to.match(/^ {4}= edited = "by hand" +# changed since Keymaster applied it$/m);
    // A why too long for the change's line: on the next lines, the overridden claim's long value whole.
    expect(shown).to.match(
      /^ {4}\+ tenant = "tenant-b"\n {8}# from Account \(AWSClusterRoleIdentity\/tenant-b\); Deny overrules Cluster "analytics/m,
    );
    expect(shown.replace(/\n {10}/g, ' ')).to.include(
      `Cluster "analytics ${'and more words '.repeat(10)}" (AWSCluster tenant-b/analytics-prod)`,
    );
  });

  it('cuts a long key, value, ARN or principal in the middle, keeping both ends', () => {
    const shown = lines.join('\n');
    expect(shown).to.match(/^ {4}\+ example\.com\/k+…k*\/last = "yes"/m);
    expect(shown).to.match(/^ {4}\+ cost-center = "cost-center:x+…x+:end-of-value"/m);
    expect(shown).to.match(/loadbalancer\/app\/anal.*….*lb\/50dc6c495c0c9188$/m);
    expect(shown).to.match(/^ {2}as arn:aws:sts::444455556666:assumed-role\/platform.*….*keymaster-session-z$/m);
  });

  it("wraps a tenant's Partial plan too: each tag with its layer and conflict, what was not checked and its fix", () => {
    const partial = table([PARTIAL]);
    expect(partial.filter((line) => characterCount(line) > LINE_WIDTH)).to.deep.equal([]);
    const joined = partial.join(' ').replace(/ +/g, ' ');
    expect(joined).to.include(`team = "a" # Cluster (AWSCluster tenant-b/analytics-prod); overrides Account`);
    expect(joined).to.include(`not checked: ${PARTIAL.unchecked![0]!.check}: ${PARTIAL.unchecked![0]!.message}`);
    expect(joined).to.include(`fix: ${PARTIAL.unchecked![0]!.hint!}`);
    expect(joined).to.include(
      "the controller's last sync (status, 2026-11-27T23:00:00Z): 2/2 resource(s) in sync, 0 drifted",
    );
  });

  it("shows the keys CAPA holds (no change of Keymaster's), and the fix where a layer wants another value", () => {
    const capa = { layer: 'ClusterAPI', object: 'AWSCluster.infrastructure.cluster.x-k8s.io tenant-a/a-prod' } as const;
    const held = { env: { ...capa, value: 'staging' }, team: { ...capa, value: 'a' } };
    const conflicts: TagConflict[] = [{ key: 'env', winner: held.env, loser: { ...global, value: 'prod' } }];
    const expected = [
      'held by Cluster API (CAPA writes them, Keymaster neither writes nor removes them): "env", "team"',
      `"env" = "staging": held by CAPA (${capa.object}) against Global "prod" (AWSTagPolicy/default): CAPA writes the key and Keymaster leaves it: set it in one of them only`,
    ];
    const partial = table([{ ...PARTIAL, held, conflicts }]);
    const planned = table([{ ...PLANNED, changes: [], conflicts, plan: { ...EMPTY_PLAN, held, conflicts } }]);
    for (const lines of [partial, planned]) {
      expect(lines.filter((line) => characterCount(line) > LINE_WIDTH)).to.deep.equal([]);
      const joined = lines.join(' ').replace(/ +/g, ' ');
      for (const line of expected) expect(joined).to.include(line);
    }
  });

  it('wraps the header, the counts, what was left out, the failure and its fix, keeping every word', () => {
    const joined = lines.join(' ').replace(/ +/g, ' ');
    expect(joined).to.include(
      'regions eu-west-1, eu-central-1, us-east-1, us-west-2, ap-southeast-1, ap-northeast-1, sa-east-1',
    );
    expect(joined).to.include(
      '14 resource(s): 13 to change (50 tag(s) to add, 2 to update, 1 to remove, 1 withheld), 1 in sync, 0 skipped; nothing was written',
    );
    expect(joined).to.include(`fix: ${REFUSED.failure!.hint}`);
    expect(joined).to.include('note: spec.tagging.dryRun: the controller plans as here and applies nothing');
    expect(lines[0]).to.match(/^tags: \+ add, ~ change, - remove, ! withheld/);
  });
});

describe('keymaster plan -o wide, name, json and yaml', () => {
  it('-o wide: a row per key of each resource, as wide as it needs', () => {
    const lines = renderPlans([PLANNED], 'wide').split('\n');
    expect(lines[0]).to.equal(
      `tenant-b/analytics-prod: account ${ACCOUNT}, regions ${PLANNED.regions!.join(', ')}, as ${ROLE}`,
    );
    expect(lines[1]).to.match(/^RESOURCE {3,}KEY {3,}CHANGE {3,}FROM {3,}TO {3,}LAYER {3,}CONFLICT$/);
    expect(lines.filter((line) => line.startsWith('arn:'))).to.have.length(CHANGES.length);
    expect(lines.some((line) => line.includes(`"${LONG_VALUE}"`))).to.equal(true);
    const drifted = lines.find((line) => line.startsWith(DRIFTED) && / team +update/.test(line));
    expect(drifted).to.match(
      / {3}update \(edited outside Keymaster\) {3,}"someone else .*" {3}"cost-center:x+:end-of-value" {3}/,
    );
  });

  it('-o name: each cluster as kubectl names an AWSCluster, nothing else', () => {
    expect(renderPlans([PLANNED, REFUSED], 'name')).to.equal(
      'awscluster.infrastructure.keymaster.dev/analytics-prod\nawscluster.infrastructure.keymaster.dev/reporting-prod\n',
    );
    expect(renderPlans([], 'name')).to.equal('');
  });

  it('-o json and -o yaml: the reports whole', () => {
    const json = JSON.parse(renderPlans([PLANNED, REFUSED], 'json')) as unknown;
    expect(json).to.deep.equal({ clusters: [PLANNED, REFUSED] });
    expect(loadYaml(renderPlans([PLANNED, REFUSED], 'yaml'))).to.deep.equal(json);
  });
});

describe('elide and wrap', () => {
  for (const [text, width, shown] of [
    ['abcdefghij', 10, 'abcdefghij'],
    ['abcdefghij', 5, 'ab…ij'],
    ['abcdefghij', 6, 'abc…ij'],
    ['a\u202eb', 20, 'a\\u202eb'],
    ['a\u202ebcdefghijkl', 8, 'a\\u2…jkl'],
  ] as const) {
    it(`elide(${JSON.stringify(text)}, ${width}) is ${JSON.stringify(shown)}`, () => {
      expect(elide(text, width)).to.equal(shown);
    });
  }

  it('wraps words at LINE_WIDTH, indents the lines after the first, elides a word wider than a line', () => {
    const words = [...Array.from({ length: 30 }, (_, index) => `word-${index}`), 'w'.repeat(150)];
    const lines = wrap('first: ', words, '  ');
    expect(lines[0]!.startsWith('first: word-0 word-1')).to.equal(true);
    expect(lines.slice(1).every((line) => line.startsWith('  ') && !line.startsWith('   '))).to.equal(true);
    expect(lines.every((line) => characterCount(line) <= LINE_WIDTH)).to.equal(true);
    expect(lines.join(' ').replace(/ +/g, ' ')).to.include(words.slice(0, 30).join(' '));
    expect(lines.at(-1)).to.match(/^ {2}w+…w+$/);
  });

  it('moves a first word that does not fit after `first` to the next line, whole when it fits there', () => {
    const arn = `loadbalancer/net/${'x'.repeat(70)}`;
    expect(wrap(`    ${'p'.repeat(20)} `, [arn], '      ')).to.deep.equal([`    ${'p'.repeat(20)}`, `      ${arn}`]);
    expect(wrap('    ', ['y'.repeat(120)], '      ')).to.deep.equal([`    ${elide('y'.repeat(120), 96)}`]);
  });
});
