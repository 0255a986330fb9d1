import { GROUP, KINDS, VERSION } from '@keymaster/api';

/** The plural (the REST resource) of each of our kinds. */
export const PLURAL: Readonly<Record<string, string>> = Object.fromEntries(
  KINDS.map((kind) => [kind.kind, kind.plural]),
);

/** The list/watch path of one of our kinds, in one namespace or all. */
export const resourcePath = (kind: string, namespace?: string): string =>
  `/apis/${GROUP}/${VERSION}/${namespace ? `namespaces/${namespace}/` : ''}${PLURAL[kind]!}`;

/** What every object Keymaster writes has. */
export interface KeymasterObject {
  apiVersion: string;
  kind: string;
  metadata: { name?: string; namespace?: string; uid?: string; resourceVersion?: string; finalizers?: string[] };
  status?: unknown;
}
