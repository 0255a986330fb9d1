export { startAwsEmulator, type AwsEmulator, type AwsEmulatorOptions } from './emulator.js';
export { AwsEmulatorError, ControlRequestError, InvalidWorldError } from './errors.js';
export type { CallRecord, CallSummary } from './calls.js';
export type { Clock } from './clock.js';
export type { Faults, FaultRule, ThrottleRule } from './faults/faults.js';
export type { Quotas, QuotaView } from './quotas/quotas.js';
export type { Quota } from './quotas/quota.js';
export type { QuotaLimit, QuotaSettings } from './quotas/settings.js';
export type { WorldState, ResourceView, SessionView } from './world/state.js';
export type {
  World,
  AccountSpec,
  UserSpec,
  RoleSpec,
  TrustSpec,
  AccessKeySpec,
  ManagedPolicySpec,
  ResourceSpec,
  OidcProviderSpec,
  OidcDiscoverySpec,
} from './world/types.js';
export { loadWorldFile } from './world/load.js';
export { validateWorld } from './world/validate.js';
