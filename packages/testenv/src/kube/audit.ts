import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Every request at level Metadata: who, verb, resource and the answer's code, no bodies. One event
 * when a request is answered; watches and other long requests also when their answer starts.
 */
export const AUDIT_POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
  - level: Metadata
`;

/** Writes the policy into `dir`; kube-apiserver's flags for a JSON-lines audit log `dir/audit.log`. */
export async function auditLogFlags(dir: string): Promise<{ flags: string[]; log: string }> {
  const policy = join(dir, 'audit-policy.yaml');
  const log = join(dir, 'audit.log');
  await writeFile(policy, AUDIT_POLICY);
  return {
    flags: [
      `--audit-policy-file=${policy}`,
      `--audit-log-path=${log}`,
      '--audit-log-format=json',
      // Written before each answer; never rotated while a test reads it (0 would mean 100 MB).
      '--audit-log-mode=blocking',
      '--audit-log-maxsize=102400',
    ],
    log,
  };
}
