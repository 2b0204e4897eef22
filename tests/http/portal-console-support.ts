import { portalUser, type PortalUser } from "./portal-support";
import type { TestProject } from "./support";

/** The people the owner-console tests need in a project: an admin, a member, a viewer, and an outsider. */
export interface ConsoleCast {
  admin: PortalUser;
  member: PortalUser;
  viewer: PortalUser;
  outsider: PortalUser;
}

export async function consoleCast(p: TestProject): Promise<ConsoleCast> {
  const [admin, member, viewer, outsider] = await Promise.all([
    portalUser(p, "admin", "Ada Admin"),
    portalUser(p, "member", "Max Member"),
    portalUser(p, "viewer", "Vic Viewer"),
    portalUser(null, null, "Otto Outsider"),
  ]);
  return { admin, member, viewer, outsider };
}
