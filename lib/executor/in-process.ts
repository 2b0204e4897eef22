import { processSingleton } from "@/lib/core/singleton";

/**
 * Our serve() endpoint's request handler, as Next.js loaded it (app/api/inngest/route.ts offers it):
 * the embedded executor, which runs in the same process, calls it directly instead of over loopback
 * HTTP and through Next.js's routing (about 3 ms per call, on every run's path). The handler gets
 * the same signed request either way, so the SDK's checks still apply. Until Next.js has loaded the
 * route (the executor's first sync does that, over HTTP), calls go over HTTP.
 */
export type ServeHandler = (request: Request) => Promise<Response>;

const slot = () => processSingleton<{ handler: ServeHandler | null }>("executor.serveInProcess", () => ({ handler: null }));

export function offerServeHandler(handler: ServeHandler): void {
  slot().handler = handler;
}

export function servedInProcess(): ServeHandler | null {
  return slot().handler;
}
