/** The formats of `keymaster plan` and `keymaster explain` (-o): its own module, so that parsing the flags loads no renderer. */
export const OUTPUTS = ['table', 'json', 'yaml'] as const;
export type Output = (typeof OUTPUTS)[number];
