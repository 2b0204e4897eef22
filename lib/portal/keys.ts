import { listProjectApiKeys, revokeApiKey, apiKeySummary } from "@/lib/auth/api-key-admin";
import { createApiKey } from "@/lib/auth/api-keys";
import type { ProjectMemberActor } from "@/lib/auth/authorize";
import type { CreateApiKeyRequest, CreatedApiKey, PortalApiKey } from "@/lib/portal/types";

/** The owner console's API keys: what the routes call once handle() has checked the admin. */
export async function projectApiKeys(member: ProjectMemberActor): Promise<{ keys: PortalApiKey[] }> {
  return { keys: await listProjectApiKeys(member.projectId) };
}

export async function createProjectApiKey(member: ProjectMemberActor, request: CreateApiKeyRequest): Promise<CreatedApiKey> {
  const created = await createApiKey({
    projectId: member.projectId,
    name: request.name,
    permissions: request.permissions,
    rateLimitPerSecond: request.rateLimitPerSecond ?? null,
  });
  return { key: await apiKeySummary(member, created.id), secret: created.apiKey };
}

export async function revokeProjectApiKey(member: ProjectMemberActor, keyId: string): Promise<{ key: PortalApiKey }> {
  return { key: await revokeApiKey(member, keyId) };
}
