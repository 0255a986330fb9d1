import { expect } from 'chai';
import { parse } from 'yaml';
import { KeymasterMetrics } from '../../src/metrics.js';
import { readText } from './repo.js';
import { selectors } from './promql.js';

interface Rule {
  alert: string;
  expr: string;
  for?: string;
  labels?: { severity?: string };
  annotations?: { summary?: string; description?: string };
}
interface Panel {
  title: string;
  id: number;
  type: string;
  targets?: { expr: string }[];
  panels?: Panel[];
}
interface Dashboard {
  uid: string;
  panels: Panel[];
  templating: { list: { name: string; type: string; query?: string | { query: string } }[] };
}

const ALERTS = 'deploy/monitoring/keymaster-alerts.yaml';
const DASHBOARD = 'deploy/monitoring/keymaster-dashboard.json';
const rules = (): Rule[] =>
  (parse(readText(ALERTS)) as { spec: { groups: { rules: Rule[] }[] } }).spec.groups.flatMap((group) => group.rules);
const dashboard = (): Dashboard => JSON.parse(readText(DASHBOARD)) as Dashboard;
const allPanels = (panels: Panel[]): Panel[] => panels.flatMap((panel) => [panel, ...allPanels(panel.panels ?? [])]);

/** Every PromQL expression of the dashboard: its panels' queries, and the selector of its label_values variables. */
function dashboardExpressions(): { where: string; expr: string }[] {
  const { panels, templating } = dashboard();
  const queries = allPanels(panels).flatMap((panel) =>
    (panel.targets ?? []).map((target) => ({ where: `panel "${panel.title}"`, expr: target.expr })),
  );
  const variables = templating.list
    .filter((variable) => variable.type === 'query')
    .map((variable) => {
      const query = typeof variable.query === 'string' ? variable.query : (variable.query?.query ?? '');
      const selector = /^label_values\((.+),\s*\w+\)$/.exec(query);
      if (!selector) throw new Error(`variable ${variable.name}: not a label_values(selector, label) query: ${query}`);
      return { where: `variable ${variable.name}`, expr: selector[1]! };
    });
  return [...queries, ...variables];
}

const alertExpressions = () => rules().map((rule) => ({ where: `alert ${rule.alert}`, expr: rule.expr }));

/** The series names the controller exports: each metric's, and a histogram's _bucket, _sum and _count. */
async function exportedSeries(): Promise<Set<string>> {
  const series = new Set<string>();
  for (const { name, type } of await new KeymasterMetrics().registry.getMetricsAsJSON()) {
    series.add(name);
    if (String(type) === 'histogram' || String(type) === 'summary')
      for (const suffix of ['_bucket', '_sum', '_count']) series.add(`${name}${suffix}`);
  }
  return series;
}

// Series Prometheus makes itself for every target, not the controller.
const PROMETHEUS_SERIES = new Set(['up']);

/** The metrics an expression names that the controller does not export. */
function unknownMetrics(expr: string, exported: Set<string>): string[] {
  return selectors(expr)
    .map((selector) => selector.metric)
    .filter((metric) => !exported.has(metric) && !PROMETHEUS_SERIES.has(metric));
}

describe('deploy/monitoring', () => {
  describe('the PromQL check', () => {
    it('finds each selector of an expression with its equality matchers, Grafana intervals included', () => {
      expect(
        selectors(
          'sum by (le) (rate(a_bucket{job="keymaster", namespace=~"$namespace"}[$__rate_interval])) unless on (instance) (b{job="keymaster"} == 0)',
        ),
      ).to.deep.equal([
        { metric: 'a_bucket', labels: { job: 'keymaster' } },
        { metric: 'b', labels: { job: 'keymaster' } },
      ]);
    });

    it('refuses an expression that does not parse, naming it', () => {
      expect(() => selectors('sum(rate(keymaster_aws_calls_total[5m])')).to.throw(
        /PromQL syntax error .* in: sum\(rate/,
      );
      expect(() => selectors('max(x) == 0 y')).to.throw(/PromQL syntax error/);
    });

    it('flags a renamed metric, and knows histogram series and Prometheus own up', async () => {
      const exported = await exportedSeries();
      expect(unknownMetrics('rate(keymaster_aws_call_total[5m])', exported)).to.deep.equal([
        'keymaster_aws_call_total',
      ]);
      expect(
        unknownMetrics(
          'rate(workqueue_queue_duration_seconds_bucket[5m]) + up + keymaster_drifted_resources',
          exported,
        ),
      ).to.deep.equal([]);
    });
  });

  it('every alert and dashboard query parses and uses only metrics the controller exports', async () => {
    const exported = await exportedSeries();
    const expressions = [...alertExpressions(), ...dashboardExpressions()];
    expect(expressions.length).to.be.greaterThan(20);
    for (const { where, expr } of expressions) {
      expect(selectors(expr), `${where} names no metric`).to.not.be.empty;
      expect(unknownMetrics(expr, exported), `${where}: ${expr}`).to.deep.equal([]);
    }
  });

  it('every query selects job="keymaster", the job the ServiceMonitors set', () => {
    for (const { where, expr } of [...alertExpressions(), ...dashboardExpressions()])
      for (const selector of selectors(expr))
        expect(selector.labels.job, `${where}: ${selector.metric} in ${expr}`).to.equal('keymaster');
    for (const path of [
      'deploy/monitoring/service-monitor.yaml',
      'deploy/helm/keymaster/templates/servicemonitor.yaml',
    ])
      expect(readText(path), path).to.match(/^ {2}jobLabel: app\.kubernetes\.io\/name$/m);
  });

  it('alerts on credential renewal, tagging, drift, the work queue, the leader and shards, each with a severity and a text', () => {
    const byName = new Map(rules().map((rule) => [rule.alert, rule]));
    const metricsOf = (alert: string) => selectors(byName.get(alert)?.expr ?? '').map((selector) => selector.metric);
    expect(metricsOf('KeymasterCredentialRenewalFailing')).to.deep.equal(['keymaster_sts_calls_total']);
    expect(metricsOf('KeymasterTaggingFailing')).to.deep.equal(['keymaster_aws_calls_total']);
    expect(metricsOf('KeymasterDriftNotCorrected')).to.deep.equal(['keymaster_drifted_resources']);
    expect(metricsOf('KeymasterWorkQueueNotDraining')).to.deep.equal([
      'workqueue_depth',
      'leader_election_master_status',
    ]);
    expect(metricsOf('KeymasterNoLeader')).to.deep.equal(['leader_election_master_status']);
    expect(metricsOf('KeymasterShardUnowned')).to.deep.equal(['keymaster_shard_owned']);
    for (const rule of byName.values()) {
      expect(rule.for, `${rule.alert}: for`).to.match(/^\d+m$/);
      expect(rule.labels?.severity, `${rule.alert}: severity`).to.be.oneOf(['warning', 'critical']);
      expect(rule.annotations?.summary, `${rule.alert}: summary`).to.be.a('string').and.not.empty;
      expect(rule.annotations?.description, `${rule.alert}: description`).to.be.a('string').and.not.empty;
    }
  });

  it('the dashboard has unique panel ids, a data source variable and the namespace variable its queries use', () => {
    const { uid, panels, templating } = dashboard();
    expect(uid).to.equal('keymaster');
    const ids = allPanels(panels).map((panel) => panel.id);
    expect(new Set(ids).size, 'panel ids').to.equal(ids.length);
    expect(templating.list.map((variable) => variable.name)).to.deep.equal(['datasource', 'namespace']);
    for (const { where, expr } of dashboardExpressions().filter(({ where }) => where.startsWith('panel')))
      expect(expr, where).to.include('namespace=~"$namespace"');
  });

  it('the Helm chart ships the same alerts and dashboard (deploy/helm/keymaster/files/)', () => {
    for (const file of ['keymaster-alerts.yaml', 'keymaster-dashboard.json'])
      expect(
        readText(`deploy/helm/keymaster/files/${file}`),
        `deploy/helm/keymaster/files/${file} differs: cp deploy/monitoring/${file} deploy/helm/keymaster/files/`,
      ).to.equal(readText(`deploy/monitoring/${file}`));
  });
});
