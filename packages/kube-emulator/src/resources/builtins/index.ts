export { admissionResources } from './admission.js';
export { selfSubjectReviews, tokenReviews } from './authentication.js';
export { customResourceDefinitions } from './apiextensions.js';
export { deployments } from './apps.js';
export { leases } from './coordination.js';
export { configMaps, namespaces, secrets, serviceAccounts } from './core.js';
export { coreEvents, eventsV1 } from './events.js';
export { clusterRoleBindings, clusterRoles, rbacResources, roleBindings, roles } from './rbac.js';
export { services } from './services.js';
