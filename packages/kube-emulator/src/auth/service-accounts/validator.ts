import { secrets, serviceAccounts } from '../../resources/builtins/core.js';
import type { Store } from '../../storage/store.js';
import { objectAt, stringAt, type Json, type JsonObject } from '../../util/json.js';
import { SERVICE_ACCOUNT_PREFIX, type User } from '../tokens.js';

/** go-jose's leeway on nbf, exp and iat, and how long ago a deletion must have started to count. */
const LEEWAY_MS = 60_000;

const CREDENTIAL_ID = 'authentication.kubernetes.io/credential-id';

const seconds = (value: Json | undefined): number | undefined => (typeof value === 'number' ? value * 1000 : undefined);

/** go-jose's Claims.Validate with its leeway, in kube-apiserver's words. */
function timeProblem(claims: JsonObject, now: number): string | undefined {
  const [notBefore, expiry, issuedAt] = [seconds(claims.nbf), seconds(claims.exp), seconds(claims.iat)];
  if (notBefore !== undefined && now + LEEWAY_MS < notBefore) return 'service account token is not valid yet';
  if (expiry !== undefined && now - LEEWAY_MS > expiry) return 'service account token has expired';
  if (issuedAt !== undefined && now + LEEWAY_MS < issuedAt) return 'service account token is issued in the future';
  return undefined;
}

const deletedBefore = (object: JsonObject, now: number): boolean => {
  const deletion = stringAt(objectAt(object, 'metadata'), 'deletionTimestamp');
  return deletion !== undefined && Date.parse(deletion) < now - LEEWAY_MS;
};

const uidOf = (object: JsonObject): string | undefined => stringAt(objectAt(object, 'metadata'), 'uid');

/**
 * kube-apiserver's validator of bound service-account tokens: the times, then that the ServiceAccount
 * (and the Secret the token is bound to) still exist with the uids of the claims. Answers the user,
 * or the error kube-apiserver reports.
 */
export function serviceAccountUser(claims: JsonObject, store: Store, now = Date.now()): User | { error: string } {
  const problem = timeProblem(claims, now);
  if (problem) return { error: problem };
  const bindings = objectAt(claims, 'kubernetes.io');
  const namespace = stringAt(bindings, 'namespace') ?? '';
  const account = objectAt(bindings, 'serviceaccount');
  const name = stringAt(account, 'name') ?? '';
  const uid = stringAt(account, 'uid') ?? '';
  const found = store.get(serviceAccounts.storageKey, namespace, name);
  if (!found) return { error: `serviceaccounts "${name}" not found` };
  if (uidOf(found) !== uid) return { error: `service account UID (${uidOf(found)}) does not match claim (${uid})` };
  if (deletedBefore(found, now)) return { error: `service account ${namespace}/${name} has been deleted` };
  const secretRef = objectAt(bindings, 'secret');
  if (secretRef) {
    const invalidated = { error: 'service account token has been invalidated' };
    const secret = store.get(secrets.storageKey, namespace, stringAt(secretRef, 'name') ?? '');
    if (!secret) return invalidated;
    const claimed = stringAt(secretRef, 'uid') ?? '';
    if (uidOf(secret) !== claimed) {
      return { error: `secret UID (${uidOf(secret)}) does not match service account secret ref claim (${claimed})` };
    }
    if (deletedBefore(secret, now)) return invalidated;
  }
  const jti = stringAt(claims, 'jti');
  return {
    name: `${SERVICE_ACCOUNT_PREFIX}${namespace}:${name}`,
    uid,
    groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, 'system:authenticated'],
    ...(jti ? { extra: { [CREDENTIAL_ID]: [`JTI=${jti}`] } } : {}),
  };
}
