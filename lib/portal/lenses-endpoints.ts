import { projectParams } from "@/lib/core/schemas";
import { defineEndpoint, JSON_BODY_ERRORS } from "@/lib/http/endpoint";
import { ensureLensBody, lensIdentifier } from "@/lib/lenses/schemas";
import { SESSION_ERRORS } from "@/lib/portal/endpoints";

/**
 * The lenses page's JSON routes: every member reads (the CDN applies lenses to what they may
 * download anyway); saving is the API's Ensure Lens with lenses:write, version rule included.
 */
const base = { tag: "Portal", auth: "session" as const, response: { description: "See lib/portal/types.ts" } };

export const portalListLensesEndpoint = defineEndpoint({
  ...base,
  operationId: "portalListLenses",
  method: "GET",
  path: "/projects/{projectId}/lenses",
  summary: "The project's lenses, the built-in ones, and images to preview them on",
  params: projectParams,
  errors: SESSION_ERRORS,
});

export const portalEnsureLensEndpoint = defineEndpoint({
  ...base,
  operationId: "portalEnsureLens",
  method: "PUT",
  path: "/projects/{projectId}/lenses/{lensIdentifier}",
  summary: "Create a lens, or update it with a greater version (409 lens/version-conflict otherwise)",
  permission: "lenses:write",
  params: projectParams.extend({ lensIdentifier }),
  body: ensureLensBody,
  errors: [...SESSION_ERRORS, ...JSON_BODY_ERRORS, "lens/version-conflict"],
});
