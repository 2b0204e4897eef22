import { z } from "zod";
import { PERMISSIONS } from "@/lib/auth/permissions";
import { projectParams, text, uuid } from "@/lib/core/schemas";
import { defineEndpoint, JSON_BODY_ERRORS } from "@/lib/http/endpoint";
import { PORTAL_BASE, SESSION_ERRORS } from "@/lib/portal/endpoints";

/** The owner console's API keys page: project admins only (keys are not an API permission). */
export const API_KEY_NAME_MAX = 100;
export const API_KEY_RATE_LIMIT_MAX = 10_000;

export const createApiKeyBody = z.strictObject({
  name: text().trim().min(1).max(API_KEY_NAME_MAX),
  permissions: z
    .array(z.enum(PERMISSIONS))
    .min(1, "choose at least one permission")
    .refine((list) => new Set(list).size === list.length, "must not repeat a permission"),
  rateLimitPerSecond: z.number().int().min(1).max(API_KEY_RATE_LIMIT_MAX).nullable().optional(),
});

const keyParams = projectParams.extend({ keyId: uuid });
const admin = { ...PORTAL_BASE, adminOnly: true } as const;

export const portalApiKeysEndpoint = defineEndpoint({
  ...admin,
  operationId: "portalApiKeys",
  method: "GET",
  path: "/projects/{projectId}/keys",
  summary: "The project's API keys (prefix, permissions, last use; never the secret)",
  params: projectParams,
  errors: SESSION_ERRORS,
});
export const portalCreateApiKeyEndpoint = defineEndpoint({
  ...admin,
  operationId: "portalCreateApiKey",
  method: "POST",
  path: "/projects/{projectId}/keys",
  summary: "Create an API key; the answer holds its secret, shown this once",
  params: projectParams,
  body: createApiKeyBody,
  response: { status: 201, description: "See lib/portal/types.ts CreatedApiKey" },
  errors: [...SESSION_ERRORS, ...JSON_BODY_ERRORS],
});
export const portalRevokeApiKeyEndpoint = defineEndpoint({
  ...admin,
  operationId: "portalRevokeApiKey",
  method: "POST",
  path: "/projects/{projectId}/keys/{keyId}/revoke",
  summary: "Revoke an API key; its next request answers 401 auth/invalid-api-key",
  params: keyParams,
  errors: [...SESSION_ERRORS, "api-key/not-found", "auth/project-mismatch"],
});
