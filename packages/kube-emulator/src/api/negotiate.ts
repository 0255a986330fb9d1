import { notAcceptable, notAcceptableConversion } from './status.js';

/** The shapes a response can take, chosen from the Accept header. */
export type Representation =
  | { kind: 'object' }
  | { kind: 'table'; includeObject: 'None' | 'Metadata' | 'Object' }
  | { kind: 'partial' }
  | { kind: 'discovery'; version: 'v2' | 'v2beta1' };

interface MediaType {
  type: string;
  params: Record<string, string>;
}

function parseAccept(header: string | undefined): MediaType[] {
  if (!header) return [{ type: '*/*', params: {} }];
  return header.split(',').map((part) => {
    const [type, ...params] = part.split(';').map((piece) => piece.trim());
    return {
      type: type!.toLowerCase(),
      params: Object.fromEntries(
        params.map((param) => param.split('=').map((piece) => piece.trim()) as [string, string]),
      ),
    };
  });
}

const isJson = (type: string): boolean => type === 'application/json' || type === '*/*' || type === 'application/*';

/**
 * Picks the first acceptable representation, as the apiserver does: Table and PartialObjectMetadata
 * on request, aggregated discovery for discovery paths, plain JSON otherwise. Protobuf alone is 406.
 */
export function negotiate(
  accept: string | undefined,
  includeObject: string | null,
  discoveryPath = false,
): Representation {
  let json = false;
  for (const { type, params } of parseAccept(accept)) {
    if (!isJson(type)) continue;
    json = true;
    if (params.as === 'Table' && (params.g === 'meta.k8s.io' || params.g === undefined)) {
      const include = includeObject === 'None' || includeObject === 'Object' ? includeObject : 'Metadata';
      return { kind: 'table', includeObject: include };
    }
    if (params.as === 'PartialObjectMetadata' || params.as === 'PartialObjectMetadataList') return { kind: 'partial' };
    if (params.as === 'APIGroupDiscoveryList' && params.g === 'apidiscovery.k8s.io') {
      if (discoveryPath && (params.v === 'v2' || params.v === 'v2beta1'))
        return { kind: 'discovery', version: params.v };
      continue;
    }
    if (params.as === undefined) return { kind: 'object' };
  }
  throw json ? notAcceptableConversion() : notAcceptable();
}
