import { randomUUID } from "node:crypto";
import { createApiKey } from "@/lib/auth/api-keys";
import type { Permission } from "@/lib/auth/permissions";
import { db } from "@/lib/db/client";
import { ensureUsageCounter } from "@/lib/usage/allowance";

/**
 * Creates a project with its owner and a first API key. Operators use it through the admin CLI;
 * the server uses it for the demo project on first start.
 */
export async function createProject(input: {
  name: string;
  permissions: Permission[];
  ownerEmail?: string;
  ownerName?: string;
}): Promise<{ projectId: string; apiKey: string; permissions: Permission[]; ownerUserId: string }> {
  const email = (input.ownerEmail ?? `owner-${randomUUID()}@sieve.local`).toLowerCase();
  const owner = await db().user.upsert({
    where: { email },
    create: { email, name: input.ownerName ?? null },
    update: {},
  });
  const project = await createOwnedProject(owner.id, input.name);
  const key = await createApiKey({ projectId: project.projectId, permissions: input.permissions, name: "default" });
  return { projectId: project.projectId, apiKey: key.apiKey, permissions: key.permissions, ownerUserId: owner.id };
}

/** A new project owned by (and with an admin membership for) an existing user; no key yet. */
export async function createOwnedProject(ownerUserId: string, name: string): Promise<{ projectId: string; name: string }> {
  const project = await db().project.create({
    data: { name, ownerUserId, members: { create: { userId: ownerUserId, role: "admin" } } },
    select: { id: true, name: true },
  });
  await ensureUsageCounter(ownerUserId);
  return { projectId: project.id, name: project.name };
}

/**
 * Whether a user may create projects in the portal: project owners may (their uploads already count
 * against their own allowance); people who only review in others' projects are added by operators.
 */
export async function ownsAProject(userId: string): Promise<boolean> {
  return (await db().project.count({ where: { ownerUserId: userId }, take: 1 })) > 0;
}

export async function listProjects() {
  const projects = await db().project.findMany({
    orderBy: { createdAt: "asc" },
    include: { owner: { select: { id: true, email: true } }, _count: { select: { assets: true, apiKeys: true } } },
  });
  return projects.map((p) => ({
    projectId: p.id,
    name: p.name,
    ownerUserId: p.owner.id,
    ownerEmail: p.owner.email,
    assets: p._count.assets,
    apiKeys: p._count.apiKeys,
    createdAt: p.createdAt.getTime(),
  }));
}

export async function countProjects(): Promise<number> {
  return db().project.count();
}
