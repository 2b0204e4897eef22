import { cdnRouteHandler } from "@/lib/cdn/adapters";

// The production server answers /cdn/v1 below Next.js (lib/cdn/adapters.ts); this route serves the
// same handler under `next dev` or any host that runs Next.js alone.
export const dynamic = "force-dynamic";
export { cdnRouteHandler as GET, cdnRouteHandler as HEAD };
