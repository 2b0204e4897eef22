import { handle, routes } from "@/lib/http/handler";
import { portalRevokeApiKeyEndpoint } from "@/lib/portal/keys-endpoints";
import { revokeProjectApiKey } from "@/lib/portal/keys";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  POST: handle(portalRevokeApiKeyEndpoint, ({ params, ctx }) => revokeProjectApiKey(ctx.member, params.keyId)),
});
