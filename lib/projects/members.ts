import { ApiError } from "@/lib/core/errors";
import { db } from "@/lib/db/client";
import type { Prisma } from "@/lib/db/generated/client";
import type { MemberRole } from "@/lib/db/generated/enums";
import { recordEvent, type NewEvent } from "@/lib/events/record";

/**
 * Project membership. Adding a member records `project.member-joined` in the same transaction, so
 * the event exists exactly when the membership does. Operators add members with the admin CLI
 * (`add-member`, `create-user --project`); the portal's invitations will call the same function
 * with the inviting user.
 */
export const MEMBER_ROLES = ["admin", "member", "viewer", "custom"] as const satisfies readonly MemberRole[];
export type { MemberRole };

export interface NewMember {
  projectId: string;
  userId: string;
  role: MemberRole;
  /** For role `custom`: the permissions it grants (API permission names). */
  permissions?: readonly string[];
  /** The user who invited them; null when an operator added them (CLI). */
  invitedByUserId: string | null;
}

/** The user is a member of the project already (a role change is not an addition). */
export class AlreadyMemberError extends Error {
  constructor(readonly projectId: string, readonly userId: string, readonly role: MemberRole) {
    super(`User ${userId} is already a member of project ${projectId} (role ${role})`);
    this.name = "AlreadyMemberError";
  }
}

export function isMemberRole(value: string): value is MemberRole {
  return (MEMBER_ROLES as readonly string[]).includes(value);
}

/** The `project.member-joined` event; the member's name falls back to their email. */
export function memberJoinedEvent(member: NewMember, user: { name: string | null; email: string }): NewEvent {
  const memberName = user.name?.trim() ? user.name.trim() : user.email;
  return {
    projectId: member.projectId,
    type: "project.member-joined",
    userId: member.userId,
    title: `${memberName} joined the project`,
    description: `${memberName} joined as ${member.role}.`,
    facts: [
      { key: "member-user-id", value: member.userId },
      { key: "member-name", value: memberName },
      { key: "role", value: member.role },
      { key: "invited-by-user-id", value: member.invitedByUserId },
    ],
  };
}

/** The same as `addProjectMember`, inside the caller's transaction (e.g. creating the user too). */
export async function addProjectMemberIn(tx: Prisma.TransactionClient, member: NewMember): Promise<{ projectId: string; userId: string; role: MemberRole }> {
  const project = await tx.project.findUnique({ where: { id: member.projectId }, select: { id: true } });
  if (!project) throw new ApiError("project/not-found", `Project ${member.projectId} not found`);
  const user = await tx.user.findUnique({ where: { id: member.userId }, select: { name: true, email: true } });
  if (!user) throw new Error(`User ${member.userId} not found`);
  // ON CONFLICT DO NOTHING keeps the transaction usable when a concurrent addition won the race.
  const { count } = await tx.projectMember.createMany({
    data: [{ projectId: member.projectId, userId: member.userId, role: member.role, permissions: member.role === "custom" ? [...(member.permissions ?? [])] : [] }],
    skipDuplicates: true,
  });
  if (count === 0) {
    const existing = await tx.projectMember.findUnique({ where: { projectId_userId: { projectId: member.projectId, userId: member.userId } } });
    throw new AlreadyMemberError(member.projectId, member.userId, existing?.role ?? member.role);
  }
  await recordEvent(tx, memberJoinedEvent(member, user));
  return { projectId: member.projectId, userId: member.userId, role: member.role };
}

/** Adds a user to a project with a role and records `project.member-joined`, in one transaction. */
export async function addProjectMember(member: NewMember): Promise<{ projectId: string; userId: string; role: MemberRole }> {
  return db().$transaction((tx) => addProjectMemberIn(tx, member));
}
