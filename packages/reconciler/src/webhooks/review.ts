/** The parts of an admission.k8s.io/v1 AdmissionRequest the webhooks read. */
export interface AdmissionRequest {
  uid: string;
  kind: { group: string; version: string; kind: string };
  subResource?: string;
  name?: string;
  namespace?: string;
  operation: 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
  userInfo: { username?: string; groups?: string[] };
  object?: unknown;
  oldObject?: unknown;
  dryRun?: boolean;
}

export interface JsonPatchOperation {
  op: 'add' | 'replace' | 'remove';
  path: string;
  value?: unknown;
}

/** A webhook's answer: allowed (maybe with a patch), or refused with an HTTP code and a message. */
export interface Verdict {
  allowed: boolean;
  code?: number;
  reason?: string;
  message?: string;
  warnings?: string[];
  patch?: JsonPatchOperation[];
}

export const allow = (warnings: string[] = []): Verdict => ({ allowed: true, warnings });

/** A refusal kubectl prints as `admission webhook "..." denied the request: <message>`. */
export const deny = (code: 403 | 409 | 422, message: string, warnings: string[] = []): Verdict => ({
  allowed: false,
  code,
  reason: code === 403 ? 'Forbidden' : code === 409 ? 'Conflict' : 'Invalid',
  message,
  warnings,
});

/** The AdmissionReview sent back for a request. */
export function reviewResponse(uid: string, verdict: Verdict): object {
  const { allowed, code, reason, message, warnings = [], patch } = verdict;
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    response: {
      uid,
      allowed,
      ...(allowed ? {} : { status: { status: 'Failure', code, reason, message } }),
      ...(warnings.length > 0 ? { warnings } : {}),
      ...(patch && patch.length > 0
        ? { patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(patch)).toString('base64') }
        : {}),
    },
  };
}
