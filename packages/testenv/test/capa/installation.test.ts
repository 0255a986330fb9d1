import { expect } from 'chai';
import { readdirSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { capaCrds, clusterApiCrds } from '../../src/capa/crds.js';
import {
  CAPA_FLAVOURS,
  CAPA_PROVISION_SCRIPT,
  capaInstallation,
  capaTemplate,
  capaVersion,
  ensureCapa,
  requireCapa,
} from '../../src/capa/installation.js';
import { clusterApiVersion } from '../../src/clusterctl/installation.js';
import { TestEnvError } from '../../src/errors.js';

const clusterApiCrdNames = (folder: string): string[] => readdirSync(folder).sort();

/** A CRD base as CAPA's module has them: no labels, no conversion. */
const base = (plural: string) => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ${plural}.infrastructure.cluster.x-k8s.io
spec:
  group: infrastructure.cluster.x-k8s.io
  names: {kind: K, plural: ${plural}}
  scope: Namespaced
  versions:
  - name: v1beta2
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object}
`;

describe("CAPA's CRDs and templates", () => {
  let cache: string;
  beforeEach(async () => (cache = await mkdtemp(join(tmpdir(), 'testenv-cache-'))));
  afterEach(() => rm(cache, { recursive: true, force: true }));

  it('are pinned to CAPA 2.13, beside the pinned Cluster API, where provision-capa.sh puts them', async () => {
    expect(capaVersion()).to.match(/^2\.13\.\d+$/);
    expect(() => capaVersion('CAPA_VERSION=v2.13\n')).to.throw('no CAPA_VERSION=');
    const dir = join(cache, 'capa', `v${capaVersion()}-capi-v${clusterApiVersion()}`);
    expect(capaInstallation(cache)).to.deep.equal({
      version: capaVersion(),
      clusterApiVersion: clusterApiVersion(),
      config: join(dir, 'config'),
      templates: join(dir, 'templates'),
      kubeadmCrds: join(dir, 'kubeadm-crds'),
      clusterApiCrds: join(dir, 'cluster-api-crds'),
    });
    const script = await readFile(CAPA_PROVISION_SCRIPT, 'utf8');
    expect(script).to.contain(
      'dir="${XDG_CACHE_HOME:-$HOME/.cache}/keymaster/testenv/capa/v$CAPA_VERSION-capi-v$CLUSTER_API_VERSION"',
    );
  });

  it('are required whole: the script marks them complete last', async () => {
    const refused = () => {
      try {
        return requireCapa(cache);
      } catch (error) {
        return error as TestEnvError;
      }
    };
    expect(refused()).to.be.instanceOf(TestEnvError).and.to.include({ code: 'ERR_KEYMASTER_TESTENV_NOT_PROVISIONED' });
    expect((refused() as TestEnvError).message).to.match(/; run \S+\/provision-capa\.sh$/);
    await mkdir(join(capaInstallation(cache).config, '..'), { recursive: true });
    await writeFile(join(capaInstallation(cache).config, '..', '.complete'), '');
    // A cache of an older layout (no Cluster API core CRDs) is provisioned again.
    expect(refused()).to.be.instanceOf(TestEnvError);
    await mkdir(capaInstallation(cache).clusterApiCrds);
    const installation = requireCapa(cache);
    expect(capaTemplate('eks', installation)).to.equal(join(installation.templates, CAPA_FLAVOURS.eks));
  });

  it('are provisioned where they are missing, by the script, when a test or the demo needs them', function () {
    this.timeout(300_000);
    // The script's cache dir is $XDG_CACHE_HOME/keymaster/testenv, as testEnvCacheDir's.
    const own = join(cache, 'keymaster', 'testenv');
    const installation = ensureCapa(own);
    expect(installation).to.deep.equal(requireCapa(own));
    const crds = clusterApiCrdNames(installation.clusterApiCrds);
    expect(crds).to.include.members(['cluster.x-k8s.io_clusters.yaml', 'clusterctl.cluster.x-k8s.io_providers.yaml']);
    expect(capaCrds(installation).map(({ metadata }) => metadata?.name)).to.include(
      'awsclusterroleidentities.infrastructure.cluster.x-k8s.io',
    );
  });

  it("labels Cluster API's CRDs as clusterctl init does, so that clusterctl move finds their objects", async () => {
    const installation = capaInstallation(cache);
    await mkdir(installation.clusterApiCrds, { recursive: true });
    await mkdir(installation.kubeadmCrds, { recursive: true });
    await writeFile(join(installation.clusterApiCrds, 'clusters.yaml'), base('clusters'));
    await writeFile(join(installation.kubeadmCrds, 'configs.yaml'), base('configs'));
    expect(clusterApiCrds(installation).map(({ metadata }) => metadata?.labels)).to.deep.equal([
      { 'clusterctl.cluster.x-k8s.io': '' },
      { 'clusterctl.cluster.x-k8s.io': '' },
    ]);
  });

  it("are installed as clusterctl installs CAPA's release: its kustomizations' labels and conversion webhook", async () => {
    const installation = capaInstallation(cache);
    const crd = join(installation.config, 'crd');
    await mkdir(join(crd, 'bases'), { recursive: true });
    await mkdir(join(crd, 'patches'), { recursive: true });
    await mkdir(join(installation.config, 'default'), { recursive: true });
    await writeFile(join(crd, 'bases', 'a.yaml'), base('awsclusters'));
    await writeFile(join(crd, 'bases', 'b.yaml'), base('awsclusterroleidentities'));
    await writeFile(
      join(crd, 'kustomization.yaml'),
      `commonLabels:\n  cluster.x-k8s.io/v1beta1: v1beta1_v1beta2\npatchesStrategicMerge:\n- patches/webhook.yaml\n- patches/cainjection.yaml\n- patches/label.yaml\n`,
    );
    await writeFile(
      join(installation.config, 'default', 'kustomization.yaml'),
      `namePrefix: capa-\nnamespace: capa-system\ncommonLabels:\n  cluster.x-k8s.io/provider: "infrastructure-aws"\n`,
    );
    await writeFile(
      join(crd, 'patches', 'webhook.yaml'),
      `apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: awsclusters.infrastructure.cluster.x-k8s.io\nspec:\n  conversion:\n    strategy: Webhook\n    webhook:\n      conversionReviewVersions: ["v1", "v1beta1"]\n      clientConfig:\n        service:\n          namespace: system\n          name: webhook-service\n          path: /convert\n`,
    );
    await writeFile(
      join(crd, 'patches', 'cainjection.yaml'),
      `apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  annotations:\n    cert-manager.io/inject-ca-from: $(CERTIFICATE_NAMESPACE)/$(CERTIFICATE_NAME)\n  name: awsclusters.infrastructure.cluster.x-k8s.io\n`,
    );
    await writeFile(
      join(crd, 'patches', 'label.yaml'),
      `apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  labels:\n    clusterctl.cluster.x-k8s.io/move-hierarchy: ""\n  name: awsclusterroleidentities.infrastructure.cluster.x-k8s.io\n`,
    );
    const [clusters, identities] = capaCrds(installation);
    const common = {
      'cluster.x-k8s.io/v1beta1': 'v1beta1_v1beta2',
      'cluster.x-k8s.io/provider': 'infrastructure-aws',
      'clusterctl.cluster.x-k8s.io': '',
    };
    expect(clusters!.metadata).to.deep.equal({ name: 'awsclusters.infrastructure.cluster.x-k8s.io', labels: common });
    expect(clusters!.spec.conversion).to.deep.equal({
      strategy: 'Webhook',
      webhook: {
        conversionReviewVersions: ['v1', 'v1beta1'],
        clientConfig: { service: { namespace: 'capa-system', name: 'capa-webhook-service', path: '/convert' } },
      },
    });
    expect(identities!.metadata!.labels).to.deep.equal({ ...common, 'clusterctl.cluster.x-k8s.io/move-hierarchy': '' });
    expect(identities!.spec.conversion).to.equal(undefined);
  });
});
