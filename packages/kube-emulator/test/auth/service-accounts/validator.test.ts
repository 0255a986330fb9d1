import { expect } from 'chai';
import { serviceAccountUser } from '../../../src/auth/service-accounts/validator.js';
import { secrets, serviceAccounts } from '../../../src/resources/builtins/core.js';
import { Store } from '../../../src/storage/store.js';

const ISSUED = 1_800_000_000;
const at = (seconds: number): number => seconds * 1000;

describe('serviceAccountUser: the validator of bound service-account tokens', () => {
  let store: Store;
  const claims = (extra: Record<string, unknown> = {}) => ({
    iat: ISSUED,
    nbf: ISSUED,
    exp: ISSUED + 3600,
    jti: 'c0ffee00-0000-4000-8000-000000000000',
    'kubernetes.io': { namespace: 'apps', serviceaccount: { name: 'robot', uid: 'sa-uid' }, ...extra },
  });

  beforeEach(() => {
    store = new Store(100);
    store.put(serviceAccounts.storageKey, { metadata: { namespace: 'apps', name: 'robot', uid: 'sa-uid' } });
    store.put(secrets.storageKey, { metadata: { namespace: 'apps', name: 'bound', uid: 'secret-uid' } });
  });

  it('is the ServiceAccount, with its groups and the token ID as credential ID', () => {
    expect(serviceAccountUser(claims(), store, at(ISSUED + 10))).to.deep.equal({
      name: 'system:serviceaccount:apps:robot',
      uid: 'sa-uid',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:apps', 'system:authenticated'],
      extra: { 'authentication.kubernetes.io/credential-id': ['JTI=c0ffee00-0000-4000-8000-000000000000'] },
    });
  });

  it('allows 60 s of leeway around nbf and exp, as go-jose does', () => {
    expect(serviceAccountUser(claims(), store, at(ISSUED + 3660))).to.have.property('name');
    expect(serviceAccountUser(claims(), store, at(ISSUED + 3661))).to.deep.equal({
      error: 'service account token has expired',
    });
    expect(serviceAccountUser(claims(), store, at(ISSUED - 60))).to.have.property('name');
    expect(serviceAccountUser(claims(), store, at(ISSUED - 61))).to.deep.equal({
      error: 'service account token is not valid yet',
    });
    const issuedLater = { ...claims(), nbf: ISSUED - 600 };
    expect(serviceAccountUser(issuedLater, store, at(ISSUED - 61))).to.deep.equal({
      error: 'service account token is issued in the future',
    });
  });

  it('needs the ServiceAccount with the uid of the claims, not deleted a minute ago', () => {
    store.put(serviceAccounts.storageKey, { metadata: { namespace: 'apps', name: 'robot', uid: 'new-uid' } });
    expect(serviceAccountUser(claims(), store, at(ISSUED))).to.deep.equal({
      error: 'service account UID (new-uid) does not match claim (sa-uid)',
    });
    const deleting = new Date(at(ISSUED - 61)).toISOString();
    store.put(serviceAccounts.storageKey, {
      metadata: { namespace: 'apps', name: 'robot', uid: 'sa-uid', deletionTimestamp: deleting },
    });
    expect(serviceAccountUser(claims(), store, at(ISSUED))).to.deep.equal({
      error: 'service account apps/robot has been deleted',
    });
    expect(serviceAccountUser(claims(), store, at(ISSUED - 30))).to.have.property('name');
  });

  it('needs the Secret it is bound to, with its uid', () => {
    const bound = (uid: string) => claims({ secret: { name: 'bound', uid } });
    expect(serviceAccountUser(bound('secret-uid'), store, at(ISSUED))).to.have.property('name');
    expect(serviceAccountUser(bound('old-uid'), store, at(ISSUED))).to.deep.equal({
      error: 'secret UID (secret-uid) does not match service account secret ref claim (old-uid)',
    });
    store.remove(secrets.storageKey, store.get(secrets.storageKey, 'apps', 'bound')!);
    expect(serviceAccountUser(bound('secret-uid'), store, at(ISSUED))).to.deep.equal({
      error: 'service account token has been invalidated',
    });
  });
});
