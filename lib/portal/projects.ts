import { PERMISSIONS } from "@/lib/auth/permissions";
import { ApiError } from "@/lib/core/errors";
import type { SessionUser } from "@/lib/http/session-auth";
import { createOwnedProject, ownsAProject } from "@/lib/projects/provision";
import type { PortalProject } from "@/lib/portal/types";

/**
 * A project created in the portal: its creator owns it (uploads count against their allowance) and
 * is its admin. Only people who already own a project may; the admin CLI still creates the first.
 */
export async function createPortalProject(user: SessionUser, name: string): Promise<PortalProject> {
  if (!(await ownsAProject(user.userId))) {
    throw new ApiError(
      "auth/insufficient-permissions",
      "Only project owners can create projects. Ask your Sieve operator to create one for you (admin create-project).",
    );
  }
  const project = await createOwnedProject(user.userId, name.trim());
  return { id: project.projectId, name: project.name, role: "admin", permissions: [...PERMISSIONS] };
}

/** Whether the portal offers this user "New project" (the route checks again). */
export const canCreateProjects = ownsAProject;
