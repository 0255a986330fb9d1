const KUBE_VERSION = /^v(\d+)(?:(alpha|beta)(\d+))?$/;
const STABILITY = { alpha: 0, beta: 1, undefined: 2 } as const;

/**
 * Kubernetes' version priority (apimachinery's CompareKubeAwareVersionStrings), highest first: GA
 * before beta before alpha, then the higher number; names of another form after them, by name.
 * Discovery lists a group's versions in this order, and the first is the group's preferred version.
 */
export function byVersionPriority(a: string, b: string): number {
  const [x, y] = [KUBE_VERSION.exec(a), KUBE_VERSION.exec(b)];
  if (!x || !y) return x ? -1 : y ? 1 : a < b ? -1 : a > b ? 1 : 0;
  const stability = (match: RegExpExecArray) => STABILITY[`${match[2] as 'alpha' | 'beta' | undefined}`];
  return stability(y) - stability(x) || Number(y[1]) - Number(x[1]) || Number(y[3] ?? 0) - Number(x[3] ?? 0);
}
