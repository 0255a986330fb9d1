/**
 * The emulator's own error base, in the style of Keymaster's errors (the emulator depends on no product
 * package): a stable `code` (`ERR_KEYMASTER_AWS_EMULATOR_*`) and a `hint` saying what to do. These are
 * errors of the emulator's use (a bad world file, a bad admin request); on the AWS wire the emulator
 * answers with AWS's own error shapes instead.
 */
export class AwsEmulatorError extends Error {
  readonly code: `ERR_KEYMASTER_AWS_EMULATOR_${string}`;
  readonly hint: string | undefined;

  constructor(
    code: `ERR_KEYMASTER_AWS_EMULATOR_${string}`,
    message: string,
    options: { hint?: string; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.hint = options.hint;
  }
}

/** A world file or world object that does not describe a valid world; the message names the field. */
export class InvalidWorldError extends AwsEmulatorError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('ERR_KEYMASTER_AWS_EMULATOR_INVALID_WORLD', message, {
      hint: 'Fix the named field in the world file; docs/emulators/aws-emulator.md describes the format.',
      ...options,
    });
  }
}

/** A request to the emulator's controls (an /_emulator path or the library) that cannot be carried out. */
export class ControlRequestError extends AwsEmulatorError {
  /** The HTTP status the admin paths answer with. */
  readonly status: number;

  constructor(status: number, message: string, hint: string) {
    super('ERR_KEYMASTER_AWS_EMULATOR_BAD_REQUEST', message, { hint });
    this.status = status;
  }
}
