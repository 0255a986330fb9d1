import type { V1Secret } from '@kubernetes/client-node';
import type { KeptSecret } from '../../src/credentials/kept-secret.js';
import type { RequestSecrets, SecretAccess } from '../../src/credentials/request-secrets.js';
import type { SecretWriter } from '../../src/credentials/secrets.js';

/** The Secrets requests control, as the cache keeps them: the test sets the access and the kept Secret. */
export class FakeRequestSecrets implements Pick<RequestSecrets, 'access' | 'get'> {
  granted: SecretAccess = 'Granted';
  kept: KeptSecret | undefined;

  access(): SecretAccess {
    return this.granted;
  }

  get(): KeptSecret | undefined {
    return this.kept;
  }
}

/** The calls on requests' Secrets, recorded in order; the test sets what create and read answer. */
export class RecordingSecretWriter implements Pick<SecretWriter, 'create' | 'read' | 'replace' | 'delete'> {
  readonly calls: string[] = [];
  /** Created, the name taken, or what create throws. */
  created: boolean | Error = true;
  /** What a read finds. */
  found: V1Secret | undefined;
  /** The data of the last Secret created or replaced. */
  data: Record<string, string> | undefined;

  create(secret: V1Secret): Promise<boolean> {
    this.calls.push('create');
    if (this.created instanceof Error) return Promise.reject(this.created);
    if (this.created) this.data = secret.data;
    return Promise.resolve(this.created);
  }

  read(): Promise<V1Secret | undefined> {
    this.calls.push('read');
    return Promise.resolve(this.found);
  }

  replace(_live: KeptSecret, desired: V1Secret): Promise<void> {
    this.calls.push('replace');
    this.data = desired.data;
    return Promise.resolve();
  }

  delete(): Promise<void> {
    this.calls.push('delete');
    return Promise.resolve();
  }
}
