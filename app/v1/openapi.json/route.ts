import { handle, routes } from "@/lib/http/handler";
import { openApiEndpoint } from "@/lib/http/system-endpoints";
import { buildOpenApiDocument } from "@/lib/openapi/document";

/**
 * The OpenAPI 3.1 document. Its server URL is the relative "/v1": clients resolve it against the
 * document's own address, so it is right behind any host name, proxy or PUBLIC_URL.
 */
export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  GET: handle(openApiEndpoint, async () => buildOpenApiDocument()),
});
