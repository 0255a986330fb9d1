/**
 * A tag key as IAM compares it in policy conditions (`aws:ResourceTag/<key>`): in any case (upper-
 * then lower-cased, so that `ß`/`SS` and `ı`/`I` meet too), and without whitespace around it, which
 * no listing shows. Two keys with one fold are one key to a policy, however AWS stores them.
 */
export const foldKey = (key: string): string => key.trim().toUpperCase().toLowerCase();
