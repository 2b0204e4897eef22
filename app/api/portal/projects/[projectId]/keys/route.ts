import { handle, routes } from "@/lib/http/handler";
import { portalApiKeysEndpoint, portalCreateApiKeyEndpoint } from "@/lib/portal/keys-endpoints";
import { createProjectApiKey, projectApiKeys } from "@/lib/portal/keys";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  GET: handle(portalApiKeysEndpoint, ({ ctx }) => projectApiKeys(ctx.member)),
  POST: handle(portalCreateApiKeyEndpoint, ({ body, ctx }) => createProjectApiKey(ctx.member, body)),
});
