/** API key permissions. A key grants exactly the permissions chosen when it was created. */
export const PERMISSIONS = [
  "assets:read",
  "assets:write",
  "assets:download",
  "assets:review",
  "lenses:write",
  "events:read",
  "events:write",
  "connectors:read",
  "connectors:write",
] as const;

export type Permission = (typeof PERMISSIONS)[number];

export function isPermission(value: string): value is Permission {
  return (PERMISSIONS as readonly string[]).includes(value);
}

/** Parses a comma-separated permission list; throws on unknown names so typos never grant less silently. */
export function parsePermissionList(list: string | undefined): Permission[] {
  if (list === undefined || list.trim() === "" || list.trim() === "all") return [...PERMISSIONS];
  const names = list.split(",").map((p) => p.trim()).filter(Boolean);
  const unknown = names.filter((n) => !isPermission(n));
  if (unknown.length > 0) {
    throw new Error(`Unknown permission(s): ${unknown.join(", ")}. Valid: ${PERMISSIONS.join(", ")}`);
  }
  return [...new Set(names as Permission[])];
}

/**
 * Who runs the project itself (API keys, members, invitations): its owner and its admins (role
 * "admin", lib/auth/roles.ts). These are not API permissions, so no key and no custom role has them.
 */
export function isProjectAdmin(actor: { role: string }): boolean {
  return actor.role === "admin";
}
