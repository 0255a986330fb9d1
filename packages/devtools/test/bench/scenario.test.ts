import { expect } from 'chai';
import { ADOPT_LABEL, ADOPT_LABEL_VALUE, CAPA_GROUP, GROUP } from '@keymaster/api';
import type { Manifest } from '@keymaster/testenv';
import { benchScenario } from '../../scripts/bench-scenario.js';
import { minimumStsCalls } from '../../src/demo/minimums.js';

const clustersOf = (objects: readonly Manifest[]) =>
  objects
    .filter(({ kind }) => kind === 'AWSCluster')
    .map(({ metadata }) => ({ namespace: metadata.namespace ?? '', name: metadata.name }));

describe('bench scenario: the adopted fleet', () => {
  const own = benchScenario(60);
  const adopted = benchScenario(60, 0, true);

  it("is the same clusters, chains and AWS as Keymaster's own kinds: the same STS minimum", () => {
    expect(clustersOf(adopted.objects)).to.deep.equal(clustersOf(own.objects));
    expect(minimumStsCalls(adopted.objects, clustersOf(adopted.objects))).to.deep.equal(
      minimumStsCalls(own.objects, clustersOf(own.objects)),
    );
    const arns = (world: typeof own.world) =>
      world.accounts.flatMap(({ resources }) => resources ?? []).map(({ arn }) => arn);
    expect(arns(adopted.world)).to.deep.equal(arns(own.world));
  });

  it("keeps clusters and identities in CAPA's kinds, each Cluster naming its CAPA AWSCluster, nothing of Keymaster's but the policy", () => {
    const keymasters = adopted.objects.filter(({ apiVersion }) => apiVersion.startsWith(`${GROUP}/`));
    expect(keymasters.map(({ kind }) => kind)).to.deep.equal(['AWSTagPolicy']);
    const capaClusters = adopted.objects.filter(
      ({ apiVersion, kind }) => kind === 'AWSCluster' && apiVersion.startsWith(`${CAPA_GROUP}/`),
    );
    expect(capaClusters).to.have.length(60);
    for (const { metadata } of capaClusters) {
      const cluster = adopted.objects.find(
        ({ kind, metadata: { namespace, name } }) =>
          kind === 'Cluster' && namespace === metadata.namespace && name === metadata.name,
      );
      expect(cluster?.spec?.['infrastructureRef']).to.deep.equal({
        apiGroup: CAPA_GROUP,
        kind: 'AWSCluster',
        name: metadata.name,
      });
    }
    const identities = adopted.objects.filter(({ kind }) => kind.endsWith('Identity'));
    expect(identities.every(({ apiVersion }) => apiVersion === `${CAPA_GROUP}/v1beta2`)).to.equal(true);
    expect(identities.some(({ spec }) => spec?.['resourceTags'] !== undefined)).to.equal(false);
  });

  it("labels the tenants' namespaces for adoption and keeps static keys in CAPA's namespace", () => {
    const tenants = new Set(clustersOf(adopted.objects).map(({ namespace }) => namespace));
    for (const tenant of tenants) {
      const namespace = adopted.objects.find(({ kind, metadata }) => kind === 'Namespace' && metadata.name === tenant);
      expect(
        (namespace?.metadata as { labels?: Record<string, string> } | undefined)?.labels?.[ADOPT_LABEL],
        tenant,
      ).to.equal(ADOPT_LABEL_VALUE);
    }
    const secrets = adopted.objects.filter(({ kind }) => kind === 'Secret');
    expect(secrets).to.not.be.empty;
    expect(secrets.every(({ metadata }) => metadata.namespace === 'capa-system')).to.equal(true);
  });

  it("has CAPA's additionalTags already on each cluster's resources, where Keymaster's own fleet has only the ownership tag", () => {
    const first = (world: typeof own.world) =>
      world.accounts.find(({ resources }) => resources?.length)!.resources![0]!;
    expect(Object.keys(first(own.world).tags ?? {})).to.have.length(1);
    const owner = Object.keys(first(adopted.world).tags ?? {})[0]!
      .split('/')
      .at(-1)!;
    const spec = adopted.objects.find(
      ({ kind, apiVersion, metadata }) =>
        kind === 'AWSCluster' && apiVersion.startsWith(CAPA_GROUP) && metadata.name === owner,
    )!.spec!;
    expect(first(adopted.world).tags).to.include(spec['additionalTags']);
  });
});
