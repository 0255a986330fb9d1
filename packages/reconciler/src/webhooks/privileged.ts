import type { AdmissionRequest } from './review.js';

/** Principals that may bypass the cross-object checks and change tenancy labels (APPUiO's privileged users). */
export interface Privileged {
  users: readonly string[];
  groups: readonly string[];
}

/** Why the requester is privileged (`user alice`, `group system:masters`), or undefined. */
export function privilegeOf(request: AdmissionRequest, privileged: Privileged): string | undefined {
  const { username = '', groups = [] } = request.userInfo;
  if (privileged.users.includes(username)) return `user ${username}`;
  const group = groups.find((name) => privileged.groups.includes(name));
  return group === undefined ? undefined : `group ${group}`;
}
