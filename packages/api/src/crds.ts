import { GROUP, VERSION } from './constants.js';
import { KINDS } from './schema/index.js';
import type { KindDefinition } from './schema/kind.js';
import { object, string, type JSONSchemaProps } from './schema/openapi.js';

export interface CustomResourceDefinition {
  apiVersion: 'apiextensions.k8s.io/v1';
  kind: 'CustomResourceDefinition';
  metadata: { name: string; labels: Record<string, string> };
  spec: {
    group: string;
    names: {
      kind: string;
      listKind: string;
      plural: string;
      singular: string;
      shortNames: string[];
      categories: string[];
    };
    scope: 'Namespaced' | 'Cluster';
    versions: {
      name: string;
      served: boolean;
      storage: boolean;
      schema: { openAPIV3Schema: JSONSchemaProps };
      subresources?: { status: Record<string, never> };
      additionalPrinterColumns: KindDefinition['printerColumns'];
    }[];
  };
}

/** The whole-object schema of a kind: apiVersion, kind, metadata, spec and status (when it has one). */
export function objectSchema(definition: KindDefinition): JSONSchemaProps {
  return object(
    definition.description,
    {
      apiVersion: string('The versioned schema of this representation of an object.'),
      kind: string('The REST resource this object represents.'),
      // Declared so that rules may point at it (fieldPath .metadata.name): at the root, the API server
      // lets a schema say only this of ObjectMeta, and checks the rest of metadata itself.
      metadata: { type: 'object', properties: { name: string('The name of the object.') } },
      spec: definition.spec,
      ...(definition.status ? { status: definition.status } : {}),
    },
    {
      ...(definition.specRequired ? { required: ['spec'] } : {}),
      ...(definition.rules ? { 'x-kubernetes-validations': definition.rules } : {}),
    },
  );
}

export function customResourceDefinition(definition: KindDefinition): CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: `${definition.plural}.${GROUP}`,
      labels: {
        'clusterctl.cluster.x-k8s.io': '',
        ...(definition.clusterctlMove ? { [`clusterctl.cluster.x-k8s.io/${definition.clusterctlMove}`]: '' } : {}),
      },
    },
    spec: {
      group: GROUP,
      names: {
        kind: definition.kind,
        listKind: `${definition.kind}List`,
        plural: definition.plural,
        singular: definition.singular,
        shortNames: definition.shortNames,
        categories: ['keymaster'],
      },
      scope: definition.scope,
      versions: [
        {
          name: VERSION,
          served: true,
          storage: true,
          schema: { openAPIV3Schema: objectSchema(definition) },
          ...(definition.status ? { subresources: { status: {} } } : {}),
          additionalPrinterColumns: definition.printerColumns,
        },
      ],
    },
  };
}

export const customResourceDefinitions = (): CustomResourceDefinition[] => KINDS.map(customResourceDefinition);
