/** A table row's expected condition reasons, by condition type. */
interface ReasonRow {
  reasons?: Record<string, string>;
}

/**
 * The reasons of `all` (by condition type) that no row of a reconcile's table expects, as
 * `Type/Reason`: each row asserts that its reasons are written, so an empty answer proves every one
 * is reached.
 */
export const reasonsWithoutRow = (rows: readonly ReasonRow[], all: Record<string, readonly string[]>): string[] =>
  Object.entries(all).flatMap(([type, reasons]) =>
    reasons
      .filter((reason) => !rows.some((row) => row.reasons?.[type] === reason))
      .map((reason) => `${type}/${reason}`),
  );
