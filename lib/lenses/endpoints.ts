import { z } from "zod";
import { uuid } from "@/lib/core/schemas";
import { AUTH_ERRORS, JSON_BODY_ERRORS, defineEndpoint } from "@/lib/http/endpoint";
import { ensureLensBody, ensureLensesBody, lensIdentifier, lensSchema } from "@/lib/lenses/schemas";

export const ensureLensEndpoint = defineEndpoint({
  operationId: "ensureLens",
  method: "PUT",
  path: "/lenses/{lensIdentifier}",
  summary: "Create or update a lens of the key's project",
  description:
    "Creates the lens when absent; an update needs a `version` greater than the current one (409 lens/version-conflict). " +
    "The body's `identifier` must equal the path's.",
  tag: "Lenses",
  auth: "apiKey",
  permission: "lenses:write",
  params: z.object({ lensIdentifier }),
  body: ensureLensBody,
  response: { description: "The lens", schema: z.object({ lens: lensSchema }) },
  errors: [...AUTH_ERRORS, ...JSON_BODY_ERRORS, "lens/version-conflict"],
});

export const ensureLensesEndpoint = defineEndpoint({
  operationId: "ensureLenses",
  method: "PUT",
  path: "/projects/{projectId}/lenses",
  summary: "Create or update several lenses at once (all or nothing)",
  description: "Each item is an Ensure Lens body; identifiers must be distinct. One conflict leaves every lens unchanged.",
  tag: "Lenses",
  auth: "apiKey",
  permission: "lenses:write",
  params: z.object({ projectId: uuid }),
  body: ensureLensesBody,
  response: { description: "The lenses, in request order", schema: z.object({ lenses: z.array(lensSchema) }) },
  errors: [...AUTH_ERRORS, ...JSON_BODY_ERRORS, "project/not-found", "lens/version-conflict"],
});
