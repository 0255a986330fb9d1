import { atomicList, free, kindSchema, object, string } from '../../schema/builders.js';
import { createdAtColumn, nameColumn } from '../../table/columns.js';
import { objectAt, type JsonObject } from '../../util/json.js';
import type { ResourceDef } from '../types.js';
import { crdCauses, crdStatus } from '../crd-definition.js';
import { defineBuiltin } from './define.js';

export const customResourceDefinitions: ResourceDef = defineBuiltin({
  group: 'apiextensions.k8s.io',
  version: 'v1',
  plural: 'customresourcedefinitions',
  kind: 'CustomResourceDefinition',
  namespaced: false,
  // kube-apiserver still stores CRDs as v1beta1 objects (their storageVersionHash says so).
  storedAs: { group: 'apiextensions.k8s.io', version: 'v1beta1' },
  shortNames: ['crd', 'crds'],
  categories: ['api-extensions'],
  statusSubresource: true,
  tracksGeneration: true,
  schema: kindSchema('CustomResourceDefinition represents a resource that should be exposed on the API server.', {
    spec: object('Spec describes how the user wants the resources to appear.', {
      group: string('The API group of the defined custom resource.'),
      names: free('The resource and kind names for the custom resource.'),
      scope: string('Whether the defined custom resource is cluster- or namespace-scoped.', {
        enum: ['Cluster', 'Namespaced'],
      }),
      versions: atomicList(
        'The API versions of the defined custom resource.',
        free('A version of the custom resource.'),
      ),
      conversion: free('How custom resources are converted between versions.'),
      preserveUnknownFields: { type: 'boolean', description: 'Deprecated; must be false.' },
    }),
    status: free('The observed state of the CustomResourceDefinition.'),
  }),
  columns: [nameColumn(), createdAtColumn],
  strategy: {
    normalize(crd: JsonObject) {
      // kube-apiserver's default: a CRD without conversion converts nothing between its versions.
      const spec = objectAt(crd, 'spec');
      if (spec && spec.conversion === undefined) spec.conversion = { strategy: 'None' };
      // And a conversion webhook's Service is called on port 443 unless it says otherwise.
      const service = objectAt(objectAt(objectAt(objectAt(spec, 'conversion'), 'webhook'), 'clientConfig'), 'service');
      if (service && service.port === undefined) service.port = 443;
    },
    // As kube-apiserver's CRD storage: the first delete adds the cleanup finalizer (objects go first).
    deletionFinalizers: ['customresourcecleanup.apiextensions.k8s.io'],
    validate: (crd) => crdCauses(crd),
    derive: (crd, old) => {
      crd.status = crdStatus(crd, old);
    },
  },
});
