import { OLDER_MINORS } from './older-minors.js';

/**
 * The differences between the kube-emulator and kube-apiserver that the corpus accepts, each with
 * its reason. Only two kinds belong here: what no client can observe, and documented limitations of
 * the emulator too large to fix now (docs/emulators/kube-emulator.md, "What is not emulated").
 * Everything else a client could see is fixed in packages/kube-emulator.
 */
export interface Explanation {
  /** What differs, in a few words (the report's first column). */
  title: string;
  /** Sequences it applies to (their names). */
  sequences: RegExp;
  /** Paths in the step answers, as compare.ts writes them, prefixed with `steps[N].`. */
  paths: RegExp;
  /** Why the difference is accepted, for the report. */
  reason: string;
  /** The Kubernetes versions it is seen on (every one when absent): an older minor's own answers, in older-minors.ts. */
  kube?: RegExp;
}

export const EXPLAINED: Explanation[] = [
  ...OLDER_MINORS,
  {
    title: "CEL compile errors: the parser's own words",
    sequences: /^CRD: a rule whose fieldPath is not in the schema$/,
    paths: /^steps\[1\]\.body\.(message|details\.causes\[0\]\.message)$/,
    reason:
      "Refused alike (422, same field, same rule printed as Go prints it); the text after `compilation failed:` is the emulator's CEL parser's (`Unexpected token: EOF`), not cel-go's ANTLR grammar's (`ERROR: <input>:1:14: Syntax error: mismatched input '<EOF>' expecting {...}`). Porting cel-go's parser errors is out of scope (docs/emulators/kube-emulator.md, What is not emulated).",
  },
  {
    title: "CEL compile errors of admission policies: the parser's own words",
    sequences: /^admission: expressions that do not compile are refused$/,
    paths: /^steps\[3\]\.body\.(message|details\.causes\[0\]\.message)$/,
    reason:
      "A ValidatingAdmissionPolicy whose expression does not parse is refused alike (422, same field, same position and caret line, as cel-go prints them); the words after `ERROR: <input>:L:C:` are the emulator's CEL parser's (`Unexpected token: EOF`), not cel-go's ANTLR grammar's (`Syntax error: mismatched input '<EOF>' expecting {...}`). Undeclared references, undefined fields and wrong result types are worded as cel-go words them (docs/emulators/kube-emulator.md, What is not emulated).",
  },
  {
    title: 'CEL cost budget: not estimated',
    sequences: /^CRD: a rule whose estimated cost is over the budget$/,
    paths: /^steps\[0\]\.(status|body)$/,
    reason:
      "kube-apiserver estimates each rule's worst-case cost from the schema's maxItems/maxLength/maxProperties (cel-go's cost estimator) and refuses CRDs over the budget; the emulator estimates nothing and accepts them. Our own CRDs are within the budget (kube-apiserver installs them). Porting the estimator is out of scope (docs/emulators/kube-emulator.md, What is not emulated).",
  },
];
