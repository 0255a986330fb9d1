import {
  CAPA_GROUP,
  CAPA_IDENTITY_KINDS,
  CredentialFailureReason,
  DEFAULT_CAPA_NAMESPACE,
  type CapaEmptySelector,
  type AllowedNamespaces,
  type IdentityObject,
} from '@keymaster/api';
import { IdentityError, linkName, NamespaceNotAllowedError, type LinkName } from './errors.js';
import { groupOf } from './identity-id.js';

export interface CapaOptions {
  /** `allowedNamespaces: {selector: {}}`: refused (`none`, with the reason on the cluster), or CAPA's every namespace. */
  emptySelector: CapaEmptySelector;
  /** CAPA's namespace, where its static identities' Secrets are (`--capa-namespace`). */
  namespace: string;
}

export const DEFAULT_CAPA_OPTIONS: CapaOptions = { emptySelector: 'none', namespace: DEFAULT_CAPA_NAMESPACE };

/** CAPA's identities are served at this version; CAPA_GROUP's identities are read at it. */
export const CAPA_VERSION = 'v1beta2';
export const CAPA_API_VERSION = `${CAPA_GROUP}/${CAPA_VERSION}`;

/** Whether an identity object is one of CAPA's (adapted by `capaIdentity`). */
export const isCapaIdentity = (identity: { apiVersion?: string }): boolean => groupOf(identity) === CAPA_GROUP;

type CapaAllowed = { list?: string[] | null; selector?: AllowedNamespaces['selector'] | null } | null | undefined;

/** Go's zero value of CAPA's AllowedNamespaces: no list (nil) and a selector with no requirement field. */
function goZero(allowed: NonNullable<CapaAllowed>): boolean {
  const { list, selector } = allowed;
  return (
    (list ?? undefined) === undefined &&
    (selector?.matchLabels ?? undefined) === undefined &&
    (selector?.matchExpressions ?? undefined) === undefined
  );
}

/**
 * CAPA's allowedNamespaces read as Keymaster's, so that each namespace gets CAPA's answer: nil none,
 * Go's zero value every namespace (`{}`), except `{selector: {}}` kept as it is (none here) unless
 * ops follow CAPA; otherwise CAPA's list and selector, which mean what Keymaster's do (an empty
 * selector matches nothing in both). Nulls CAPA writes are dropped.
 */
function allowedNamespacesOf(allowed: CapaAllowed, emptySelector: CapaEmptySelector): AllowedNamespaces | undefined {
  if (allowed === null || allowed === undefined) return undefined;
  if (goZero(allowed)) return allowed.selector && emptySelector === 'none' ? { selector: {} } : {};
  return {
    ...(allowed.list ? { list: allowed.list } : {}),
    ...(allowed.selector ? { selector: allowed.selector } : {}),
  };
}

/** The spec fields CAPA's kinds have (Keymaster's have the same names), the rest left out. */
const CAPA_FIELDS: Record<string, readonly string[]> = {
  AWSClusterControllerIdentity: [],
  AWSClusterStaticIdentity: ['secretRef'],
  AWSClusterRoleIdentity: [
    'roleARN',
    'sessionName',
    'durationSeconds',
    'inlinePolicy',
    'policyARNs',
    'externalID',
    'sourceIdentityRef',
  ],
};

/**
 * One of CAPA's identities (infrastructure.cluster.x-k8s.io/v1beta2) in Keymaster's shape, read and
 * never written. It keeps CAPA's apiVersion (its group keys it apart from Keymaster's identity of the
 * same kind and name), CAPA's fields only (no externalIDSecretRef, resourceTags or credentialVending:
 * never vended), and CAPA's allowedNamespaces as `allowedNamespacesOf` reads them. Undefined for a
 * kind CAPA does not have.
 */
export function capaIdentity(object: Record<string, unknown>, options: CapaOptions): IdentityObject | undefined {
  const { kind, metadata, spec } = object as { kind?: string; metadata?: object; spec?: Record<string, unknown> };
  if (!kind || !CAPA_IDENTITY_KINDS.includes(kind)) return undefined;
  const fields = Object.fromEntries(
    CAPA_FIELDS[kind]!.filter((field) => spec?.[field] !== undefined && spec[field] !== null).map((field) => [
      field,
      spec![field],
    ]),
  );
  const allowedNamespaces = allowedNamespacesOf(spec?.allowedNamespaces as CapaAllowed, options.emptySelector);
  return {
    apiVersion: CAPA_API_VERSION,
    kind,
    metadata: metadata ?? {},
    spec: { ...fields, ...(allowedNamespaces ? { allowedNamespaces } : {}) },
  } as unknown as IdentityObject;
}

/**
 * Why a namespace may not use a link: a CAPA identity whose `{selector: {}}` ops did not opt into
 * says so and names the flag; any other, NamespaceNotAllowedError's own words.
 */
export function namespaceRefusal(
  link: LinkName,
  identity: IdentityObject,
  namespace: string,
  depth: number,
): NamespaceNotAllowedError {
  const { allowedNamespaces } = identity.spec as { allowedNamespaces?: AllowedNamespaces };
  const emptySelector =
    isCapaIdentity(identity) &&
    allowedNamespaces?.list === undefined &&
    allowedNamespaces?.selector !== undefined &&
    Object.keys(allowedNamespaces.selector).length === 0;
  if (!emptySelector) return new NamespaceNotAllowedError(link, namespace, depth);
  return new NamespaceNotAllowedError(link, namespace, depth, {
    message:
      `namespace "${namespace}" may not use ${linkName(link)}: its allowedNamespaces is {selector: {}}, which ` +
      'CAPA reads as every namespace and Keymaster as none',
    hint:
      `Name the namespaces in spec.allowedNamespaces of ${linkName(link)} (list, or a selector with requirements), ` +
      'or, for the platform team, run Keymaster with --capa-empty-selector=all-namespaces to read it as CAPA does.',
  });
}

/** Why a controller reads none of CAPA's identities: its mode is off, or CAPA's CRDs are not installed. */
export type CapaNotRead = 'off' | 'crds-missing';

/** A chain names one of CAPA's identities, and this controller reads none of them (`CapaNotRead`). */
export class CapaIdentitiesNotReadError extends IdentityError {
  constructor(link: LinkName, why: CapaNotRead) {
    super(
      'ERR_KEYMASTER_CAPA_IDENTITIES_NOT_READ',
      `${linkName(link)} is one of CAPA's identities, which Keymaster does not read: ` +
        (why === 'off'
          ? '--adopt-cluster-api is off'
          : `CAPA's CRDs (${CAPA_GROUP}) were not installed when it started`),
      {
        hint:
          why === 'off'
            ? 'The platform team turns it on: keymaster run --adopt-cluster-api (Helm: adoptClusterAPI.enabled=true).'
            : "The platform team installs Cluster API's AWS provider (CAPA) or its CRDs, then restarts Keymaster.",
        link,
        reason: CredentialFailureReason.IdentityNotFound,
      },
    );
  }
}
