import type { ProjectMemberActor } from "@/lib/auth/authorize";
import type { Permission } from "@/lib/auth/permissions";
import { createInvitation, pendingInvitations, revokeInvitation, type InvitationSummary } from "@/lib/projects/invitations";
import { changeMemberRole, listMembers, removeMember, type MemberSummary } from "@/lib/projects/member-admin";
import type { CreatedInvitation, PortalInvitation, PortalMember, RoleRequest } from "@/lib/portal/types";

/** The owner console's members and invitations: what the routes call once handle() has checked the admin. */
const member = (m: MemberSummary): PortalMember => ({ ...m, permissions: m.permissions as Permission[] });
const invitation = (i: InvitationSummary): PortalInvitation => ({
  id: i.id,
  role: i.role,
  permissions: i.permissions as Permission[],
  invitedByName: i.invitedByName,
  createdAt: i.createdAt,
  expiresAt: i.expiresAt,
});

export async function projectMembers(actor: ProjectMemberActor): Promise<{ members: PortalMember[] }> {
  return { members: (await listMembers(actor.projectId)).map(member) };
}

export async function changeRole(actor: ProjectMemberActor, userId: string, request: RoleRequest): Promise<{ member: PortalMember }> {
  return { member: member(await changeMemberRole(actor, userId, request)) };
}

export async function removeProjectMember(actor: ProjectMemberActor, userId: string): Promise<{ removed: string }> {
  await removeMember(actor, userId);
  return { removed: userId };
}

export async function projectInvitations(actor: ProjectMemberActor): Promise<{ invitations: PortalInvitation[] }> {
  return { invitations: (await pendingInvitations(actor.projectId)).map(invitation) };
}

export async function inviteToProject(actor: ProjectMemberActor, request: RoleRequest): Promise<CreatedInvitation> {
  const created = await createInvitation({ projectId: actor.projectId, role: request.role, permissions: request.permissions, invitedByUserId: actor.userId });
  return { invitation: invitation(created.invitation), path: `/invite/${created.token}` };
}

export async function revokeProjectInvitation(actor: ProjectMemberActor, invitationId: string): Promise<{ revoked: string }> {
  await revokeInvitation(actor, invitationId);
  return { revoked: invitationId };
}
