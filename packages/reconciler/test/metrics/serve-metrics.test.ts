import type { Server } from 'node:http';
import { expect } from 'chai';
import { KeymasterMetrics } from '../../src/metrics.js';
import { serveMetrics } from '../../src/servers.js';

/** The metric names of a Prometheus text (its `# TYPE` lines). */
const typed = (text: string) => [...text.matchAll(/^# TYPE (\S+)/gm)].map(([, name]) => name);

describe('/metrics', () => {
  const metrics = new KeymasterMetrics();
  let url: string;
  let server: Server;
  before(async () => {
    metrics.runtime.reconcileTotal.inc({ controller: 'awscluster', result: 'success' }, 3);
    ({ url, server } = await serveMetrics(metrics, { host: '127.0.0.1', port: 0 }));
  });
  after(() => new Promise((resolve) => server.close(resolve)));

  it("serves every metric, the default ones and Keymaster's", async () => {
    const names = typed(await (await fetch(`${url}/metrics`)).text());
    expect(names).to.include.members([
      'process_cpu_seconds_total',
      'controller_runtime_reconcile_total',
      'keymaster_aws_budget_requests_total',
    ]);
    expect(names.length).to.be.greaterThan(30);
  });

  it('serves only the metrics name[] asks for, with their samples', async () => {
    const response = await fetch(
      `${url}/metrics?name[]=process_cpu_seconds_total&name[]=controller_runtime_reconcile_total`,
    );
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.equal(metrics.registry.contentType);
    const text = await response.text();
    expect(typed(text)).to.deep.equal(['process_cpu_seconds_total', 'controller_runtime_reconcile_total']);
    expect(text).to.include('controller_runtime_reconcile_total{controller="awscluster",result="success"} 3');
  });

  it('serves a default metric alone as fresh as the whole text does: its sibling collects it', async () => {
    // prom-client sets process_cpu_seconds_total in process_cpu_user_seconds_total's collect only.
    const spent = Date.now() + 50;
    while (Date.now() < spent); // CPU time, so that the counter must move
    const cpu = async (query: string) =>
      Number(/^process_cpu_seconds_total (\S+)$/m.exec(await (await fetch(`${url}/metrics${query}`)).text())![1]);
    const first = await cpu('?name[]=process_cpu_seconds_total');
    expect(first).to.be.greaterThan(0);
    const until = Date.now() + 50;
    while (Date.now() < until);
    expect(await cpu('?name[]=process_cpu_seconds_total')).to.be.greaterThan(first);
  });

  it('refuses a name it does not serve, naming it and the fix', async () => {
    const response = await fetch(`${url}/metrics?name[]=process_cpu_seconds_total&name[]=no_such_metric`);
    expect(response.status).to.equal(400);
    expect(await response.text()).to.equal(
      'name[]: no metric no_such_metric; ask for names GET /metrics lists, or for none to get all\n',
    );
  });

  it('answers 404 elsewhere', async () => {
    expect((await fetch(`${url}/other`)).status).to.equal(404);
  });
});
