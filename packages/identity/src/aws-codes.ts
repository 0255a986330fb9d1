/**
 * AWS's error code of an SDK error's name. The SDK names the errors an API models `<Code>Exception`
 * (`PackedPolicyTooLargeException`) and the others by their code (`AccessDenied`): rules and hints
 * match the code, whichever the SDK gave.
 */
export const awsErrorCode = (name: string): string => name.replace(/Exception$/, '');

/**
 * Codes by which AWS refuses what was asked, not who asked: the same call is refused again however
 * often it is made, until its input changes. The packed size depends on the call's session policy,
 * policy ARNs and session tags only. (MalformedPolicyDocument is not one: it also names a managed
 * policy that does not exist yet.)
 */
const INPUT_REFUSALS = new Set(['PackedPolicyTooLarge']);

export const refusesInput = (name: string): boolean => INPUT_REFUSALS.has(awsErrorCode(name));
