import { z } from "zod";
import { NOT_BLANK, projectParams, text } from "@/lib/core/schemas";
import { defineEndpoint, JSON_BODY_ERRORS } from "@/lib/http/endpoint";
import { PORTAL_BASE, SESSION_ERRORS } from "@/lib/portal/endpoints";
import { USAGE_WINDOW_DAYS } from "@/lib/usage/usage-types";

/** The owner console's project-level routes: creating a project, and its usage page. */
export const newProjectBody = z.strictObject({
  name: text().min(1).max(100).regex(NOT_BLANK, "must not be blank"),
});

export const usageQuery = z.strictObject({
  days: z.coerce
    .number()
    .pipe(z.union(USAGE_WINDOW_DAYS.map((days) => z.literal(days)), { error: `must be one of ${USAGE_WINDOW_DAYS.join(", ")}` }))
    .optional(),
});

export const portalCreateProjectEndpoint = defineEndpoint({
  ...PORTAL_BASE,
  operationId: "portalCreateProject",
  method: "POST",
  path: "/projects",
  summary: "Create a project owned by the signed-in project owner",
  body: newProjectBody,
  response: { status: 201, description: "The new project, as /me lists it" },
  errors: [...SESSION_ERRORS, ...JSON_BODY_ERRORS],
});

export const portalUsageEndpoint = defineEndpoint({
  ...PORTAL_BASE,
  operationId: "portalUsage",
  method: "GET",
  path: "/projects/{projectId}/usage",
  summary: "Uploads against the allowance, assets by status and type, decisions per day, reviewer throughput",
  params: projectParams,
  query: usageQuery,
  errors: [...SESSION_ERRORS, "request/validation-failed"],
});
