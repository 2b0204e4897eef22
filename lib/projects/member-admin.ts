import { ApiError } from "@/lib/core/errors";
import { db } from "@/lib/db/client";
import type { Prisma } from "@/lib/db/generated/client";
import type { MemberRole } from "@/lib/projects/members";

/**
 * The owner console's member management: list, change role, remove. The project's owner stays an
 * admin (409 `member/owner-protected`), and no change may leave the project without an admin
 * (409 `member/last-admin`); both are checked with the project row locked, so two admins demoting
 * each other at once cannot both succeed.
 */
export interface MemberSummary {
  userId: string;
  name: string | null;
  email: string;
  role: MemberRole;
  /** For role `custom`: what it grants; empty otherwise. */
  permissions: string[];
  joinedAt: number;
  isOwner: boolean;
}

export async function listMembers(projectId: string): Promise<MemberSummary[]> {
  const project = await db().project.findUnique({
    where: { id: projectId },
    select: {
      ownerUserId: true,
      members: { select: { userId: true, role: true, permissions: true, createdAt: true, user: { select: { name: true, email: true } } }, orderBy: [{ createdAt: "asc" }, { userId: "asc" }] },
    },
  });
  if (!project) throw new ApiError("project/not-found");
  return project.members.map((m) => ({
    userId: m.userId,
    name: m.user.name,
    email: m.user.email,
    role: m.role,
    permissions: m.role === "custom" ? m.permissions : [],
    joinedAt: m.createdAt.getTime(),
    isOwner: m.userId === project.ownerUserId,
  }));
}

/** Locks the project row and answers the member's current standing (404 when not a member). */
async function lockedStanding(tx: Prisma.TransactionClient, projectId: string, userId: string) {
  await tx.$queryRaw`SELECT id FROM projects WHERE id = ${projectId}::uuid FOR UPDATE`;
  const project = await tx.project.findUnique({ where: { id: projectId }, select: { ownerUserId: true } });
  const member = await tx.projectMember.findUnique({ where: { projectId_userId: { projectId, userId } } });
  if (!project || !member) throw new ApiError("member/not-found");
  if (project.ownerUserId === userId) throw new ApiError("member/owner-protected");
  return member;
}

async function assertAnotherAdmin(tx: Prisma.TransactionClient, projectId: string, userId: string) {
  const others = await tx.projectMember.count({ where: { projectId, role: "admin", userId: { not: userId } } });
  if (others === 0) throw new ApiError("member/last-admin");
}

export async function changeMemberRole(
  scope: { projectId: string },
  userId: string,
  change: { role: MemberRole; permissions?: readonly string[] },
): Promise<MemberSummary> {
  await db().$transaction(async (tx) => {
    const member = await lockedStanding(tx, scope.projectId, userId);
    if (member.role === "admin" && change.role !== "admin") await assertAnotherAdmin(tx, scope.projectId, userId);
    await tx.projectMember.update({
      where: { projectId_userId: { projectId: scope.projectId, userId } },
      data: { role: change.role, permissions: change.role === "custom" ? [...(change.permissions ?? [])] : [] },
    });
  });
  const updated = (await listMembers(scope.projectId)).find((m) => m.userId === userId);
  if (!updated) throw new ApiError("member/not-found");
  return updated;
}

export async function removeMember(scope: { projectId: string }, userId: string): Promise<void> {
  await db().$transaction(async (tx) => {
    const member = await lockedStanding(tx, scope.projectId, userId);
    if (member.role === "admin") await assertAnotherAdmin(tx, scope.projectId, userId);
    await tx.projectMember.delete({ where: { projectId_userId: { projectId: scope.projectId, userId } } });
  });
}
