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
}

export const EXPLAINED: Explanation[] = [];
