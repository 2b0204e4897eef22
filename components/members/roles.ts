import type { MemberRoleName } from "@/lib/portal/types";

/** Roles in words (lib/auth/roles.ts says what each allows). */
export const ROLE_LABELS: Record<MemberRoleName, string> = { admin: "Admin", member: "Member", viewer: "Viewer", custom: "Custom" };

export const ROLE_DESCRIPTIONS: Record<MemberRoleName, string> = {
  admin: "Everything, including API keys, members and invitations",
  member: "Review, upload, download and read events; no connector changes",
  viewer: "Read-only: assets, their media and events",
  custom: "Exactly the permissions you choose",
};

export const ROLE_NAMES: readonly MemberRoleName[] = ["admin", "member", "viewer", "custom"];
