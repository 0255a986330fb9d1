import type { Explanation } from './explained.js';

const OLDEST = /^1\.35\./;
const FOLLOWS = 'The kube-emulator follows the newest supported minor (1.37, docs/emulators/kube-emulator.md)';

/**
 * What kube-apiserver 1.35 answers differently from 1.37, the minor the kube-emulator follows: the
 * corpus runs on every supported minor, and these are 1.35's own answers, not bugs of the emulator.
 */
export const OLDER_MINORS: Explanation[] = [
  {
    title: "1.35: patches that are not JSON, in each decoder's words",
    kube: OLDEST,
    sequences: /^(merge patch: not an object|patches that are not JSON, of each type)$/,
    paths: /^steps\[\d+\]\.body\.message$/,
    reason: `1.37 checks a patch is JSON before decoding it (\`invalid JSON patch\`, 400 either way); 1.35 says what its decoder found. ${FOLLOWS}.`,
  },
  {
    title: '1.35: a finalizer added while deleting, reported twice',
    kube: OLDEST,
    sequences: /^deletion: no new finalizers once deleting$/,
    paths: /^steps\[2\]\.body\.details\.causes\[1\]$/,
    reason: `1.35 reports it from its generic and its kind-specific update checks; 1.37 once. ${FOLLOWS}.`,
  },
  {
    title: '1.35: an empty owner reference uid is an invalid value, without the index',
    kube: OLDEST,
    sequences: /^deletion: ownerReferences that are invalid$/,
    paths: /^steps\[0\]\.body\.(message|details\.causes\[0\]\.(field|message|reason))$/,
    reason: `1.37 says \`metadata.ownerReferences[0].uid: Required value\`, as its declarative validation does. ${FOLLOWS}.`,
  },
  {
    title: '1.35: integer formats are not checked',
    kube: OLDEST,
    sequences: /^schema: integer bounds and string lengths of a role identity$/,
    paths: /^steps\[3\]\.body\.(message|details\.causes\[\d\](\.(field|message|reason))?)$/,
    reason: `1.35 drops \`format: int64\` from CRD schemas; 1.37 keeps it, so a fraction is refused as a float64 and as out of the int64 range. ${FOLLOWS}.`,
  },
  {
    title: "1.35: RBAC validation's own words",
    kube: OLDEST,
    sequences: /^(built-in: RBAC rules and bindings|built-in: a RoleBinding cannot change its roleRef)$/,
    paths: /^steps\[[01]\]\.body\.(message|details\.causes\[0\]\.message)$/,
    reason: `1.37 words empty verbs and a changed roleRef as its declarative validation does (\`Required value\`, \`field is immutable\`); 1.35 as its handwritten one. ${FOLLOWS}.`,
  },
  {
    title: "1.35: authorizers' reasons not named after them",
    kube: OLDEST,
    sequences: /^RBAC: a binding to a missing Role grants nothing$/,
    paths: /^steps\[1\]\.body\.message$/,
    reason: `1.37 prefixes each authorizer's reason with its name (\`rbac: RBAC: ...\`). ${FOLLOWS}.`,
  },
  {
    title: '1.35: a binding without validation actions, with the reason',
    kube: OLDEST,
    sequences: /^admission: policies and bindings that kube-apiserver refuses$/,
    paths: /^steps\[2\]\.body\.(message|details\.causes\[1\]\.message)$/,
    reason: `1.35 adds \`at least one validation action is required\`; 1.37 says \`Required value\` alone. ${FOLLOWS}.`,
  },
  {
    title: '1.35: impersonation without constrained impersonation',
    kube: OLDEST,
    sequences: /^RBAC: impersonation without the right to impersonate$/,
    paths: /^steps\[[0-3]\]\.body\.(message|details\.(group|kind|name))$/,
    reason: `1.35 has constrained impersonation (KEP-5284) off (alpha): it refuses the first \`impersonate\` the requester lacks, and a user-less request as \`requested [...] without impersonating a user\`; 1.37 names the \`impersonate-on:<mode>:<verb>\` it lacks on the request, and the user info asked for. ${FOLLOWS}.`,
  },
  {
    title: '1.35: its own version',
    kube: OLDEST,
    sequences: /^discovery: \/version$/,
    paths: /^steps\[0\]\.body\.(minor|emulationMinor|minCompatibilityMinor)$/,
    reason: `/version says which minor answers. ${FOLLOWS}.`,
  },
];
