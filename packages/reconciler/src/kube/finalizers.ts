/**
 * A finalizer Keymaster sets, under the name kube-apiserver's conventions ask for
 * (`infrastructure.keymaster.dev/<name>`: a domain and a path, or it warns at every write), and the
 * names earlier releases set for the same purpose: those are still honoured, and replaced.
 */
export interface Finalizer {
  readonly name: string;
  readonly formerNames: readonly string[];
}

const namesOf = ({ name, formerNames }: Finalizer): string[] => [name, ...formerNames];

/** Whether the object holds the finalizer, under its name or a former one (an object deleted before the upgrade). */
export function holds(finalizers: readonly string[], finalizer: Finalizer): boolean {
  return namesOf(finalizer).some((name) => finalizers.includes(name));
}

/**
 * The finalizers with ours present under its name alone, or undefined when they already are so: a
 * former name is replaced in place, in the same write (never a moment without it), others stay as they are.
 */
export function withFinalizer(finalizers: readonly string[], finalizer: Finalizer): string[] | undefined {
  if (finalizers.includes(finalizer.name) && !finalizer.formerNames.some((name) => finalizers.includes(name)))
    return undefined;
  const replaced = finalizers.map((name) => (finalizer.formerNames.includes(name) ? finalizer.name : name));
  return [...new Set([...replaced, finalizer.name])];
}

/** The finalizers without ours, under any of its names. */
export function withoutFinalizer(finalizers: readonly string[], finalizer: Finalizer): string[] {
  return finalizers.filter((name) => !namesOf(finalizer).includes(name));
}
