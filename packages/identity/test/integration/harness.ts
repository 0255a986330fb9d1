import { startAwsEmulator, type AwsEmulator } from '@keymaster/aws-emulator';
import type { IdentityKind } from '@keymaster/api';
import {
  IdentityResolver,
  type IdentityObject,
  type IdentityResolverOptions,
  type IdentityStore,
  type NamespaceInfo,
  type SecretData,
} from '../../src/index.js';
import { controller, keys, role, staticIdentity } from '../fixtures.js';
import { CONTROLLER_KEYS, EXTERNAL_ID, ROLE, TENANT_A_KEYS, world } from './world.js';

/** The identities of a small multi-tenant platform, as an editable store. */
export class Platform implements IdentityStore {
  readonly identities = new Map<string, IdentityObject>();
  readonly secrets = new Map<string, SecretData>();
  readonly namespaces = new Map<string, NamespaceInfo>();

  constructor() {
    for (const object of [
      controller({ list: ['tenant-b', 'tenant-c'] }),
      staticIdentity('tenant-a', 'tenant-a-keys', { list: ['tenant-a'] }),
      role('keymaster-hub', {
        roleARN: ROLE.hub,
        allowedNamespaces: { selector: { matchLabels: { tier: 'managed' } } },
      }),
      role('tenant-b', {
        roleARN: ROLE.tenantB,
        externalID: EXTERNAL_ID,
        sourceIdentityRef: { kind: 'AWSClusterRoleIdentity', name: 'keymaster-hub' },
        sessionTags: [{ key: 'tenant', value: 'tenant-b' }],
        allowedNamespaces: { list: ['tenant-b'] },
      }),
      role('tenant-b-deep', {
        roleARN: ROLE.deep,
        sourceIdentityRef: { kind: 'AWSClusterRoleIdentity', name: 'tenant-b' },
        allowedNamespaces: { list: ['tenant-b'] },
      }),
      role('tenant-a-tagger', {
        roleARN: ROLE.viaStatic,
        durationSeconds: 7200,
        sourceIdentityRef: { kind: 'AWSClusterStaticIdentity', name: 'tenant-a' },
        allowedNamespaces: { list: ['tenant-a'] },
      }),
    ]) {
      this.put(object);
    }
    this.secrets.set('keymaster-system/tenant-a-keys', keys(TENANT_A_KEYS.accessKeyId, TENANT_A_KEYS.secretAccessKey));
    this.namespaces.set('tenant-a', { name: 'tenant-a', labels: {} });
    this.namespaces.set('tenant-b', { name: 'tenant-b', labels: { tier: 'managed' } });
    this.namespaces.set('tenant-c', { name: 'tenant-c', labels: {} });
  }

  put(object: IdentityObject): void {
    this.identities.set(`${object.kind}/${object.metadata.name!}`, object);
  }

  /** Edits a copy of an identity, as `kubectl edit` would (same UID). */
  edit(kind: IdentityKind, name: string, change: (object: IdentityObject) => void): void {
    const copy = structuredClone(this.identities.get(`${kind}/${name}`)!);
    change(copy);
    this.put(copy);
  }

  getIdentity(kind: IdentityKind, name: string) {
    return Promise.resolve(this.identities.get(`${kind}/${name}`));
  }

  listIdentities() {
    return Promise.resolve([...this.identities.values()]);
  }

  getSecret(namespace: string, name: string) {
    return Promise.resolve(this.secrets.get(`${namespace}/${name}`));
  }

  getNamespace(name: string) {
    return Promise.resolve(this.namespaces.get(name));
  }
}

/** tenant-b's identity for workloads: tenant-b's role through the hub, vended to tenant-b (AWSCredentialsRequests). */
export const tenantBWorkloads = (): IdentityObject =>
  role('tenant-b-workloads', {
    roleARN: ROLE.tenantB,
    externalID: EXTERNAL_ID,
    sourceIdentityRef: { kind: 'AWSClusterRoleIdentity', name: 'keymaster-hub' },
    sessionTags: [{ key: 'tenant', value: 'tenant-b' }],
    allowedNamespaces: { list: ['tenant-b'] },
    credentialVending: { allowedNamespaces: { list: ['tenant-b'] } },
  });

export interface Harness {
  aws: AwsEmulator;
  platform: Platform;
  resolver: IdentityResolver;
  /** Count of successful and failed calls of an action (IAM name, e.g. `sts:AssumeRole`). */
  calls(action: string): number;
  /** Count of an action made by a caller, from the emulator's per-caller accounting. */
  callsBy(callerArn: string, action: string): number;
}

/** A resolver of the platform's identities against the aws-emulator, on its clock, with `options` on top. */
export function resolverOn(
  aws: AwsEmulator,
  platform: Platform,
  options: Partial<IdentityResolverOptions> = {},
): IdentityResolver {
  return new IdentityResolver({
    store: platform,
    controllerNamespace: 'keymaster-system',
    controllerCredentials: () => Promise.resolve(CONTROLLER_KEYS),
    aws: { endpoint: aws.url, stsRegion: 'us-east-1' },
    clock: () => aws.clock.nowMs(),
    ...options,
  });
}

export async function startHarness(): Promise<Harness> {
  const aws = await startAwsEmulator({ world: world() });
  const platform = new Platform();
  return {
    aws,
    platform,
    resolver: resolverOn(aws, platform),
    calls: (action) => aws.calls.summary().byAction[action] ?? 0,
    callsBy: (callerArn, action) => aws.calls.summary().byCaller[callerArn]?.[action] ?? 0,
  };
}
