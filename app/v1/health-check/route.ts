import { handle, routes } from "@/lib/http/handler";
import { healthCheckEndpoint } from "@/lib/http/system-endpoints";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  GET: handle(healthCheckEndpoint, async () => new Response("OK", { headers: { "Content-Type": "text/plain; charset=utf-8" } })),
});
