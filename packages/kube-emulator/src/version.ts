/**
 * The Kubernetes minor the emulator follows: what `/version` and the OpenAPI documents say, and the
 * kube-apiserver whose answers the fidelity corpus holds it to: the newest minor of
 * packages/testenv/kube-versions.txt (docs/emulators/kube-emulator.md). Moving to another minor is this
 * constant, and whatever the corpus then finds.
 */
export const KUBERNETES_MINOR = 37;

/** `v1.37.0`: the emulator claims the minor's first patch. */
export const GIT_VERSION = `v1.${KUBERNETES_MINOR}.0`;
