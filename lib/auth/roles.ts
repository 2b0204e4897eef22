import { isPermission, PERMISSIONS, type Permission } from "@/lib/auth/permissions";

/**
 * What a project role may do, in the API's permission names, so one check serves keys and people.
 *   admin   everything (and, with the owner console, members and keys)
 *   member  day-to-day work: read, upload, download, review, mark events read, read connectors
 *   viewer  read-only: assets, their media, events
 *   custom  exactly the member's own permission list
 * The project's owner is an admin whether or not a membership row says so.
 */
export type RoleName = "admin" | "member" | "viewer" | "custom";

const ROLE_PERMISSIONS: Record<Exclude<RoleName, "custom">, readonly Permission[]> = {
  admin: PERMISSIONS,
  member: ["assets:read", "assets:write", "assets:download", "assets:review", "lenses:write", "events:read", "events:write", "connectors:read"],
  viewer: ["assets:read", "assets:download", "events:read"],
};

export function rolePermissions(role: RoleName, customPermissions: readonly string[] = []): Permission[] {
  if (role === "custom") return [...new Set(customPermissions.filter(isPermission))];
  return [...ROLE_PERMISSIONS[role]];
}

