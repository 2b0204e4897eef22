import { z } from "zod";
import { atMostOneOf, text, uuid } from "@/lib/core/schemas";
import { AUTH_ERRORS, JSON_BODY_ERRORS, defineEndpoint } from "@/lib/http/endpoint";

export const MAX_SIGNED_URL_SECONDS = 24 * 60 * 60;

export const signedUrlBody = atMostOneOf(
  z.strictObject({
    resource: z.enum(["content", "preview"]),
    expiresInSeconds: z.number().min(1).max(MAX_SIGNED_URL_SECONDS),
    lens: text().min(1).max(51).optional(),
    transform: text().min(1).max(500).optional(),
  }),
  ["lens", "transform"],
);
export type SignedUrlInput = z.infer<typeof signedUrlBody>;

export const signedUrlSchema = z.object({
  url: z.string().describe("Signed CDN URL, including the exp and sig query parameters"),
  expiresAt: z.number().int().describe("Expiry, ms since epoch"),
});

export const createSignedUrlEndpoint = defineEndpoint({
  operationId: "createSignedUrl",
  method: "POST",
  path: "/assets/{assetId}/signed-url",
  summary: "Create a signed CDN URL",
  description:
    "A URL under {cdn_url} that opens the asset's content or preview (optionally through a lens or a direct transform) " +
    "without credentials until `expiresAt`. The signature (HMAC-SHA256 with a key id for rotation) covers the project, " +
    "the asset, the resource, the normalized selector and the expiry; changing any of them invalidates it. " +
    "Sending both `lens` and `transform` gives 400 request/validation-failed; an unknown or inactive lens or a malformed " +
    "transform gives the CDN's 400 codes at once. The URL still obeys the serving rules when used.",
  tag: "Assets",
  auth: "apiKey",
  permission: "assets:download",
  params: z.object({ assetId: uuid }),
  body: signedUrlBody,
  response: { description: "The signed URL", schema: signedUrlSchema },
  errors: [...AUTH_ERRORS, ...JSON_BODY_ERRORS, "asset/not-found", "project/not-found", "asset/invalid-transform", "asset/invalid-transform-options"],
});
