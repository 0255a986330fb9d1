/** The formats of `keymaster plan` and `keymaster explain` (-o): their own module, so that parsing the flags loads no renderer. */
export const PLAN_OUTPUTS = ['table', 'wide', 'name', 'json', 'yaml'] as const;
/** One cluster's explanation has no wider table, and naming the one cluster asked about tells nothing. */
export const EXPLAIN_OUTPUTS = ['table', 'json', 'yaml'] as const;
export type PlanOutput = (typeof PLAN_OUTPUTS)[number];
export type ExplainOutput = (typeof EXPLAIN_OUTPUTS)[number];
export type Output = PlanOutput | ExplainOutput;
