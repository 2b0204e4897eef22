/**
 * Sieve's production server: starts the database (embedded unless DATABASE_URL is set), applies
 * migrations, builds Next.js when no build exists, and serves everything from one Node HTTP server.
 * Owning the server lets the CDN's hot path be dispatched below Next.js later without rework.
 */
import { runServer } from "@/lib/server/main";

runServer().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exit(1);
});
