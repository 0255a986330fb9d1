/**
 * The one error base of Keymaster. Every package extends it with its own base class; each error
 * carries a stable `code` (`ERR_KEYMASTER_*`) that tests and users can rely on, and a `hint` that
 * tells the user what to do about it.
 */
export class KeymasterError extends Error {
  readonly code: `ERR_KEYMASTER_${string}`;
  readonly hint: string | undefined;

  constructor(code: `ERR_KEYMASTER_${string}`, message: string, options: { hint?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.hint = options.hint;
  }
}
