import { z } from "zod";
import { defineEndpoint } from "@/lib/http/endpoint";

export const healthCheckEndpoint = defineEndpoint({
  operationId: "healthCheck",
  method: "GET",
  path: "/health-check",
  summary: "Reachability of the public API (no downstream checks)",
  tag: "System",
  auth: "none",
  response: { description: "The text OK", contentType: "text/plain", schema: z.literal("OK") },
  errors: [],
});

export const openApiEndpoint = defineEndpoint({
  operationId: "getOpenApiDocument",
  method: "GET",
  path: "/openapi.json",
  summary: "This OpenAPI 3.1 document",
  tag: "System",
  auth: "none",
  response: { description: "OpenAPI document", schema: z.object({}).passthrough() },
  errors: [],
});
