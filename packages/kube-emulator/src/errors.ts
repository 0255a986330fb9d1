/**
 * The base of the kube-emulator's own errors (bad options, unreadable files). Errors that a client
 * sees on the wire are Kubernetes `Status` objects instead (see api/status.ts).
 */
export class KubeEmulatorError extends Error {
  readonly code: `ERR_KEYMASTER_KUBE_EMULATOR_${string}`;
  readonly hint: string | undefined;

  constructor(
    code: `ERR_KEYMASTER_KUBE_EMULATOR_${string}`,
    message: string,
    options: { hint?: string; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.hint = options.hint;
  }
}
