/** An error as an AWS service answers it on the wire: a code, a message and an HTTP status. */
export class ApiError extends Error {
  readonly code: string;
  readonly status: number;

  constructor(code: string, message: string, status = 400) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.status = status;
  }
}

/** AWS's `N validation error(s) detected: ...` error from a list of constraint failures. */
export function validationError(code: string, failures: readonly string[]): ApiError {
  const count = failures.length;
  return new ApiError(code, `${count} validation error${count === 1 ? '' : 's'} detected: ${failures.join('; ')}`);
}
