/**
 * Every e2e test fails when a controller process logged a warning of the API server (a `Warning`
 * header: kube-apiserver warns of deprecated APIs, finalizer names, unknown fields...) since the
 * test before it: a root hook plugin of mocha (.mocharc.json `require`). The test is failed itself
 * (`this.test.error`), so the run goes on.
 */

/** What `keymaster run` logs for each such warning (packages/reconciler/src/kube/api-warnings.ts). */
export const API_WARNING_MESSAGE = 'the API server sent a warning';

const unreported: string[] = [];

/** A warning the tests expect until `end()`: the server's words on an object they made so on purpose. */
export interface ExpectedApiWarning {
  /** Each time a controller logged it. */
  readonly seen: string[];
  end(): void;
}

const expected = new Set<ExpectedApiWarning & { pattern: RegExp }>();

/** From now until `end()`, a warning matching `pattern` is kept in `seen` and fails no test. */
export function expectApiWarning(pattern: RegExp): ExpectedApiWarning {
  const expectation = { pattern, seen: [] as string[], end: () => void expected.delete(expectation) };
  expected.add(expectation);
  return expectation;
}

/** A controller logged this warning (ControllerProcess reads every process's log). */
export function noteApiWarning(warning: string): void {
  const expectation = [...expected].find(({ pattern }) => pattern.test(warning));
  if (expectation) expectation.seen.push(warning);
  else unreported.push(warning);
}

function takeWarnings(): Error | undefined {
  if (unreported.length === 0) return undefined;
  const warnings = unreported.splice(0);
  return new Error(
    `the API server sent the controller ${warnings.length} warning(s) during this test or its set-up:\n${warnings.map((warning) => `  ${warning}`).join('\n')}`,
  );
}

export const mochaHooks = {
  afterEach(this: Mocha.Context): void {
    const error = takeWarnings();
    if (error) (this.test as Mocha.Hook).error(error);
  },
  afterAll(): void {
    const error = takeWarnings();
    if (error) throw error;
  },
};
