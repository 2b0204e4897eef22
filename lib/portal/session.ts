import { notFound, redirect } from "next/navigation";
import { memberProjects, projectMembership, type ProjectMemberActor } from "@/lib/auth/authorize";
import { signedInUser } from "@/lib/http/session-auth";
import type { PortalProject, PortalUser } from "@/lib/portal/types";

/**
 * The portal's pages ask here who is signed in and what they may see: through Auth.js's session and
 * the one authorisation module (lib/auth/authorize.ts), never around them.
 */
export async function currentPortalUser(): Promise<PortalUser | null> {
  const user = await signedInUser();
  return user && { id: user.userId, email: user.email, name: user.name };
}

/** The signed-in user, or a redirect to the sign-in page that comes back to `callbackPath`. */
export async function requirePortalUser(callbackPath: string): Promise<PortalUser> {
  const user = await currentPortalUser();
  if (!user) redirect(`/login?callbackUrl=${encodeURIComponent(callbackPath)}`);
  return user;
}

/** The user and their standing in the project; Next's not-found page when they are not a member. */
export async function requireProjectMember(projectId: string, callbackPath: string): Promise<{ user: PortalUser; project: PortalProject }> {
  const user = await requirePortalUser(callbackPath);
  const member = await projectMembership(user.id, projectId);
  if (!member) notFound();
  return { user, project: portalProject(member) };
}

export async function portalProjects(userId: string): Promise<PortalProject[]> {
  return (await memberProjects(userId)).map(portalProject);
}

export function portalProject(member: ProjectMemberActor): PortalProject {
  return { id: member.projectId, name: member.projectName, role: member.role, permissions: member.permissions };
}
