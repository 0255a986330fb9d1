/** The test environment's errors: something missing to start the real servers, and how to get it. */
export class TestEnvError extends Error {
  readonly code: `ERR_KEYMASTER_TESTENV_${string}`;
  readonly hint: string | undefined;

  constructor(
    code: `ERR_KEYMASTER_TESTENV_${string}`,
    message: string,
    options: { hint?: string; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.hint = options.hint;
  }
}
