/**
 * Entry of a CDN serving process (lib/server/cdn-processes.ts starts it, from server.ts): the CDN's
 * handler with its state cache and invalidation, nothing else — no Next.js, no pipeline, no models.
 * It makes no transforms itself: the main process does (askMainProcess), and the bytes it returns
 * stay in this process's memory cache.
 */
import { dispatchCdn } from "@/lib/cdn/adapters";
import type { CachedBytes } from "@/lib/cdn/derived-cache";
import { delegateDerivedImages } from "@/lib/cdn/derived-production";
import { startCdnInvalidation } from "@/lib/cdn/invalidation";
import { disconnectDb } from "@/lib/db/client";
import { askMainProcess, runCdnProcess } from "@/lib/server/cdn-processes";

runCdnProcess({
  async prepare() {
    startCdnInvalidation();
    // Transforms run in the main process: once per image and size across all processes.
    delegateDerivedImages(async (job) => {
      const made = await askMainProcess<{ data: Uint8Array; contentType: string }>(job);
      return { data: Buffer.from(made.data.buffer, made.data.byteOffset, made.data.byteLength), contentType: made.contentType } satisfies CachedBytes;
    });
  },
  dispatch: dispatchCdn,
  stop: disconnectDb,
}).catch((error: unknown) => {
  console.error(`[sieve] CDN process: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});
