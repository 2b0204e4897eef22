import { createHash, randomBytes } from "node:crypto";
import { ApiError } from "@/lib/core/errors";
import { db } from "@/lib/db/client";
import type { Prisma } from "@/lib/db/generated/client";
import { addProjectMemberIn, AlreadyMemberError, type MemberRole } from "@/lib/projects/members";

/**
 * Invitation links: an admin creates one with a role; whoever opens it signs in or signs up and
 * joins with that role. Only the token's SHA-256 is stored (the link is shown once), a link is
 * usable once, until it expires or is revoked, and accepting it adds the member and records
 * `project.member-joined` (invited-by: the admin) in one transaction.
 */
export const INVITATION_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;

export interface InvitationSummary {
  id: string;
  role: MemberRole;
  permissions: string[];
  invitedByUserId: string;
  invitedByName: string;
  createdAt: number;
  expiresAt: number;
}

/** What the invitation page shows to whoever holds the link. */
export interface InvitationView {
  projectId: string;
  projectName: string;
  role: MemberRole;
  permissions: string[];
  invitedByName: string;
  expiresAt: number;
  state: "open" | "expired" | "accepted" | "revoked";
}

const hashToken = (token: string) => createHash("sha256").update(token, "utf8").digest("hex");
const nameOf = (user: { name: string | null; email: string }) => user.name?.trim() || user.email;

const SUMMARY = {
  id: true,
  role: true,
  permissions: true,
  invitedByUserId: true,
  createdAt: true,
  expiresAt: true,
  invitedBy: { select: { name: true, email: true } },
} as const;

function summary(row: Prisma.InvitationGetPayload<{ select: typeof SUMMARY }>): InvitationSummary {
  return {
    id: row.id,
    role: row.role,
    permissions: row.role === "custom" ? row.permissions : [],
    invitedByUserId: row.invitedByUserId,
    invitedByName: nameOf(row.invitedBy),
    createdAt: row.createdAt.getTime(),
    expiresAt: row.expiresAt.getTime(),
  };
}

export async function createInvitation(input: {
  projectId: string;
  role: MemberRole;
  permissions?: readonly string[];
  invitedByUserId: string;
}): Promise<{ invitation: InvitationSummary; token: string }> {
  const token = randomBytes(32).toString("base64url");
  const row = await db().invitation.create({
    data: {
      projectId: input.projectId,
      tokenHash: hashToken(token),
      role: input.role,
      permissions: input.role === "custom" ? [...(input.permissions ?? [])] : [],
      invitedByUserId: input.invitedByUserId,
      expiresAt: new Date(Date.now() + INVITATION_LIFETIME_MS),
    },
    select: SUMMARY,
  });
  return { invitation: summary(row), token };
}

/** Invitations that can still be accepted, newest first. */
export async function pendingInvitations(projectId: string): Promise<InvitationSummary[]> {
  const rows = await db().invitation.findMany({
    where: { projectId, acceptedAt: null, revokedAt: null, expiresAt: { gt: new Date() } },
    select: SUMMARY,
    orderBy: [{ createdAt: "desc" }, { id: "asc" }],
  });
  return rows.map(summary);
}

export async function revokeInvitation(scope: { projectId: string }, invitationId: string): Promise<void> {
  const found = await db().invitation.findUnique({ where: { id: invitationId }, select: { projectId: true } });
  if (!found || found.projectId !== scope.projectId) throw new ApiError("invitation/not-found");
  await db().invitation.updateMany({ where: { id: invitationId, revokedAt: null, acceptedAt: null }, data: { revokedAt: new Date() } });
}

/** The invitation behind a link, in whatever state it is; null for a token that names none. */
export async function invitationByToken(token: string): Promise<InvitationView | null> {
  if (!/^[A-Za-z0-9_-]{20,100}$/.test(token)) return null;
  const row = await db().invitation.findUnique({
    where: { tokenHash: hashToken(token) },
    select: { ...SUMMARY, projectId: true, acceptedAt: true, revokedAt: true, project: { select: { name: true } } },
  });
  if (!row) return null;
  const state = row.revokedAt ? "revoked" : row.acceptedAt ? "accepted" : row.expiresAt.getTime() <= Date.now() ? "expired" : "open";
  const { invitedByName, role, permissions, expiresAt } = summary(row);
  return { projectId: row.projectId, projectName: row.project.name, role, permissions, invitedByName, expiresAt, state };
}

/**
 * Uses the invitation for `userId` inside the caller's transaction: marks it accepted (only if it
 * is still open: a concurrent acceptance or revocation wins or loses as a whole) and adds the
 * member, which records `project.member-joined`. 410 `invitation/unusable` for a link that is
 * not open, 409 `member/already-member` when the user is in the project already.
 */
export async function acceptInvitationIn(tx: Prisma.TransactionClient, token: string, userId: string): Promise<{ projectId: string; role: MemberRole }> {
  const tokenHash = hashToken(token);
  const now = new Date();
  const { count } = await tx.invitation.updateMany({
    where: { tokenHash, acceptedAt: null, revokedAt: null, expiresAt: { gt: now } },
    data: { acceptedAt: now, acceptedByUserId: userId },
  });
  if (count === 0) throw new ApiError("invitation/unusable");
  const invitation = await tx.invitation.findUniqueOrThrow({ where: { tokenHash } });
  try {
    await addProjectMemberIn(tx, {
      projectId: invitation.projectId,
      userId,
      role: invitation.role,
      permissions: invitation.permissions,
      invitedByUserId: invitation.invitedByUserId,
    });
  } catch (error) {
    if (error instanceof AlreadyMemberError) throw new ApiError("member/already-member");
    throw error;
  }
  return { projectId: invitation.projectId, role: invitation.role };
}

export async function acceptInvitation(token: string, userId: string): Promise<{ projectId: string; role: MemberRole }> {
  return db().$transaction((tx) => acceptInvitationIn(tx, token, userId));
}
