import type { AwsFailure } from './codes.js';

/** One entry of a TagResources / UntagResources answer's `FailedResourcesMap`. */
export interface FailedResource {
  StatusCode?: number;
  ErrorCode?: string;
  ErrorMessage?: string;
}

/** One entry of `FailedResourcesMap` as an `AwsFailure`. */
export function resourceFailure(entry: FailedResource): AwsFailure {
  return {
    code: entry.ErrorCode ?? 'Unknown',
    message: entry.ErrorMessage ?? '',
    ...(entry.StatusCode === undefined ? {} : { status: entry.StatusCode }),
  };
}

/** The per-ARN failures of an answer: its `FailedResourcesMap`'s entries; none for an answer without one. */
export function failuresOf(output: unknown): AwsFailure[] {
  const failed = (output as { FailedResourcesMap?: Record<string, FailedResource> }).FailedResourcesMap ?? {};
  return Object.values(failed).map(resourceFailure);
}
