import { expect } from 'chai';
import { customResourceDefinitions, GROUP, IDENTITY_KINDS, KINDS, type JSONSchemaProps } from '../src/index.js';

/** Yields every schema node under a root, with its path. */
function* nodes(schema: JSONSchemaProps, path = ''): Generator<[string, JSONSchemaProps]> {
  yield [path, schema];
  for (const [key, child] of Object.entries(schema.properties ?? {})) yield* nodes(child, `${path}.${key}`);
  if (schema.items) yield* nodes(schema.items, `${path}[]`);
  if (schema.additionalProperties) yield* nodes(schema.additionalProperties, `${path}{}`);
}

describe('CRDs', () => {
  const crds = customResourceDefinitions();

  it('has one CRD per kind, named <plural>.<group>, with the status subresource (account bindings and the ledger aside) and the keymaster category', () => {
    expect(crds.map((crd) => crd.spec.names.kind)).to.deep.equal(KINDS.map((kind) => kind.kind));
    for (const crd of crds) {
      expect(crd.metadata.name).to.equal(`${crd.spec.names.plural}.${GROUP}`);
      expect(crd.spec.versions).to.have.length(1);
      // An account binding is the platform's declaration and the ledger keeps everything in spec, all of
      // them spec: clusterctl move creates objects with their status dropped.
      const subresources = ['AWSAccountBinding', 'AWSClusterLedger'].includes(crd.spec.names.kind)
        ? undefined
        : { status: {} };
      expect(crd.spec.versions[0]?.subresources, crd.spec.names.kind).to.deep.equal(subresources);
      expect(crd.spec.versions[0]?.schema.openAPIV3Schema.properties?.['status'] !== undefined).to.equal(
        subresources !== undefined,
      );
      expect(crd.spec.names.categories).to.include('keymaster');
      expect(crd.spec.names.shortNames).to.have.length.greaterThan(0);
    }
  });

  it('labels every CRD for clusterctl: identities and account bindings move as a hierarchy, AWSClusters, their ledgers and the identities tenants own with their namespace', () => {
    const moves = Object.fromEntries(
      crds.map((crd) => {
        expect(crd.metadata.labels['clusterctl.cluster.x-k8s.io']).to.equal('');
        const labels = Object.entries(crd.metadata.labels).filter(([label]) =>
          label.startsWith('clusterctl.cluster.x-k8s.io/'),
        );
        return [crd.spec.names.kind, Object.fromEntries(labels)];
      }),
    );
    expect(moves).to.deep.equal({
      AWSCluster: { 'clusterctl.cluster.x-k8s.io/move': '' },
      // Cluster-scoped identities are copied with every move; a tenant's own, namespaced, moves with its namespace.
      ...Object.fromEntries(
        IDENTITY_KINDS.map((kind) => [
          kind,
          kind === 'AWSServiceAccountIdentity'
            ? { 'clusterctl.cluster.x-k8s.io/move': '' }
            : { 'clusterctl.cluster.x-k8s.io/move-hierarchy': '' },
        ]),
      ),
      AWSTagPolicy: {},
      AWSCredentialsRequest: { 'clusterctl.cluster.x-k8s.io/move': '' },
      // Cluster-scoped like identities, and copied with every move as they are.
      AWSAccountBinding: { 'clusterctl.cluster.x-k8s.io/move-hierarchy': '' },
      // Not below a move-hierarchy object (an AWSCluster moves with its namespace), so it needs its own
      // label; clusterctl creates it after its owner and points its ownerReference at the owner's new UID.
      AWSClusterLedger: { 'clusterctl.cluster.x-k8s.io/move': '' },
    });
  });

  it('is structural: every node has a type, and every field a description for kubectl explain', () => {
    for (const crd of crds) {
      const root = crd.spec.versions[0]!.schema.openAPIV3Schema;
      for (const [path, node] of nodes(root)) {
        expect(node.type, `${crd.spec.names.kind}${path} has no type`).to.be.a('string');
        if (path !== '.metadata')
          expect(node.description, `${crd.spec.names.kind}${path} has no description`).to.be.a('string').and.not.empty;
      }
    }
  });

  it('uses patterns that compile, anchored at both ends, and defaults that pass their own schema', () => {
    for (const crd of crds) {
      for (const [path, node] of nodes(crd.spec.versions[0]!.schema.openAPIV3Schema)) {
        if (node.pattern !== undefined) {
          expect(() => new RegExp(node.pattern!, 'u'), path).not.to.throw();
          expect(node.pattern, path).to.match(/^\^.*\$$/);
        }
        if (node.enum && node.default !== undefined) expect(node.enum, path).to.include(node.default);
      }
    }
  });

  it("points every rule's fieldPath at a field its schema declares, as kube-apiserver requires of a CRD", () => {
    let checked = 0;
    for (const crd of crds) {
      for (const [path, node] of nodes(crd.spec.versions[0]!.schema.openAPIV3Schema)) {
        for (const { fieldPath } of node['x-kubernetes-validations'] ?? []) {
          if (fieldPath === undefined) continue;
          let target: JSONSchemaProps | undefined = node;
          for (const name of fieldPath.split('.').slice(1))
            target = target?.properties ? target.properties[name] : target?.additionalProperties;
          expect(target, `${crd.spec.names.kind} ${path} fieldPath ${fieldPath}`).to.exist;
          checked++;
        }
      }
    }
    expect(checked).to.be.greaterThan(0);
  });

  it('shows the columns an operator wants at a glance', () => {
    const columns = (kind: string) =>
      crds
        .find((crd) => crd.spec.names.kind === kind)!
        .spec.versions[0]!.additionalPrinterColumns.map((column) => column.name);
    expect(columns('AWSCluster')).to.deep.equal([
      'Ready',
      'Reason',
      'Account',
      'In-Sync',
      'Drifted',
      'Age',
      'Region',
      'Identity',
      'Chain',
    ]);
    expect(columns('AWSClusterRoleIdentity')).to.include.members(['Role', 'Age']);
    expect(columns('AWSClusterStaticIdentity')).to.include.members(['Secret', 'Age']);
  });
});
