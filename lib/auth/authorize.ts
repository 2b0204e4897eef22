import { isProjectAdmin, type Permission } from "@/lib/auth/permissions";
import { rolePermissions, type RoleName } from "@/lib/auth/roles";
import type { AuthenticatedKey } from "@/lib/auth/types";
import { ApiError } from "@/lib/core/errors";
import { isUuid } from "@/lib/core/ids";
import { db } from "@/lib/db/client";

/**
 * The one authorisation module: every API route (through handle()) and every portal page, action
 * and route asks here whether an actor may touch a project and do an operation.
 */

/** 404 when the project does not exist, 403 when it exists but belongs to another key's project. */
export async function assertProjectAccess(key: AuthenticatedKey, projectId: string): Promise<void> {
  if (projectId === key.projectId) return;
  const exists = await db().project.findUnique({ where: { id: projectId }, select: { id: true } });
  throw new ApiError(exists ? "auth/project-mismatch" : "project/not-found");
}

/**
 * The project a request acts in: an API key's project, or the path's project of a portal route
 * (whose member was authorised by handle()). Domain lookups by id take this, not the whole key.
 */
export type ProjectScope = Pick<AuthenticatedKey, "projectId">;

/** For resources addressed by their own id: they must belong to the key's project. */
export function assertSameProject(key: ProjectScope, projectId: string): void {
  if (projectId !== key.projectId) throw new ApiError("auth/project-mismatch");
}

/** 403 unless the key was granted `permission`. */
export function assertPermission(key: AuthenticatedKey, permission: Permission | undefined): void {
  if (permission && !key.permissions.includes(permission)) {
    throw new ApiError("auth/insufficient-permissions", `This API key lacks the "${permission}" permission.`);
  }
}

/** A signed-in person acting in one project, with what their role lets them do. */
export interface ProjectMemberActor {
  userId: string;
  name: string;
  projectId: string;
  projectName: string;
  role: RoleName;
  permissions: Permission[];
}

/** One read gives the project, the user's membership and their name (as member or as owner). */
function standingSelect(userId: string) {
  const person = { select: { name: true, email: true } };
  return {
    id: true,
    name: true,
    ownerUserId: true,
    owner: person,
    members: { where: { userId }, select: { role: true, permissions: true, user: person } },
  } as const;
}

type ProjectStanding = {
  id: string;
  name: string;
  ownerUserId: string;
  owner: { name: string | null; email: string };
  members: { role: RoleName; permissions: string[]; user: { name: string | null; email: string } }[];
};

function actorOf(userId: string, project: ProjectStanding): ProjectMemberActor | null {
  const membership = project.members[0];
  const isOwner = project.ownerUserId === userId;
  const role: RoleName | null = isOwner ? "admin" : (membership?.role ?? null);
  const person = isOwner ? project.owner : membership?.user;
  if (role === null || !person) return null;
  return {
    userId,
    name: person.name?.trim() || person.email,
    projectId: project.id,
    projectName: project.name,
    role,
    permissions: rolePermissions(role, membership?.permissions ?? []),
  };
}

/**
 * The user's standing in a project: its owner (admin) or a member with a role; null when neither or
 * when the project does not exist (callers answer 404 for both, so membership does not leak).
 */
export async function projectMembership(userId: string, projectId: string): Promise<ProjectMemberActor | null> {
  if (!isUuid(projectId)) return null;
  const project = await db().project.findUnique({ where: { id: projectId }, select: standingSelect(userId) });
  return project ? actorOf(userId, project) : null;
}

/**
 * For portal routes, pages and actions: 404 `project/not-found` unless the user belongs to the
 * project, 403 unless their role grants `permission`.
 */
export async function authorizeMember(
  userId: string,
  projectId: string,
  permission?: Permission,
  requirement: { admin?: boolean } = {},
): Promise<ProjectMemberActor> {
  const actor = await projectMembership(userId, projectId);
  if (!actor) throw new ApiError("project/not-found");
  if (permission && !actor.permissions.includes(permission)) {
    throw new ApiError("auth/insufficient-permissions", `Your role (${actor.role}) does not allow "${permission}" in this project.`);
  }
  if (requirement.admin && !isProjectAdmin(actor)) {
    throw new ApiError("auth/insufficient-permissions", `Only a project admin can do this; your role is ${actor.role}.`);
  }
  return actor;
}


/** Every project the user owns or belongs to, with their role there. */
export async function memberProjects(userId: string): Promise<ProjectMemberActor[]> {
  const projects = await db().project.findMany({
    where: { OR: [{ ownerUserId: userId }, { members: { some: { userId } } }] },
    select: standingSelect(userId),
    orderBy: { createdAt: "asc" },
  });
  return projects.map((p) => actorOf(userId, p)).filter((a): a is ProjectMemberActor => a !== null);
}
