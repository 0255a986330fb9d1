export { allowedActions, iamPolicy, type IamPolicy, type IamStatement, type IamValue } from './document.js';
export { TAGGED_SERVICES, taggingPolicy } from './tagging.js';
export {
  DEFAULT_WEB_IDENTITY_AUDIENCE,
  assumeRolesPolicy,
  podIdentityTrustPolicy,
  roleTrustPolicy,
  webIdentityTrustPolicy,
  type RoleTrust,
  type WebIdentityTrust,
} from './roles.js';
export { tenantRoleTemplate } from './cloudformation.js';
