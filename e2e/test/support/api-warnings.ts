/**
 * Every e2e test fails when a controller process logged a warning of the API server (a `Warning`
 * header: kube-apiserver warns of deprecated APIs, finalizer names, unknown fields...) since the
 * test before it: a root hook plugin of mocha (.mocharc.json `require`). The test is failed itself
 * (`this.test.error`), so the run goes on.
 */

/** What `keymaster run` logs for each such warning (packages/reconciler/src/kube/api-warnings.ts). */
export const API_WARNING_MESSAGE = 'the API server sent a warning';

const unreported: string[] = [];

/** A controller logged this warning (ControllerProcess reads every process's log). */
export function noteApiWarning(warning: string): void {
  unreported.push(warning);
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
