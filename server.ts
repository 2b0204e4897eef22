/**
 * Sieve's production server and the composition root: lib/server starts the database (embedded
 * unless DATABASE_URL is set), applies migrations, builds Next.js when no build exists and serves
 * everything from one Node HTTP server (so the CDN's hot path can be dispatched below Next.js);
 * this file plugs the application into it — the demo project, background tasks, model warm-up.
 */
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { setUserPassword } from "@/lib/admin/users";
import { expireAbandonedUploads } from "@/lib/assets/multipart";
import { reconcileLabelQueue } from "@/lib/assets/labels/queue";
import { reconcilePendingAssets } from "@/lib/assets/processing/reconcile";
import { PERMISSIONS } from "@/lib/auth/permissions";
import { pruneExpiredSessions } from "@/lib/auth/sessions";
import { dispatchCdn } from "@/lib/cdn/adapters";
import { makeDerivedImage, type DerivedJob } from "@/lib/cdn/derived-production";
import { startCdnInvalidation } from "@/lib/cdn/invalidation";
import { startConnectorDispatcher } from "@/lib/connectors/dispatch";
import { pruneDeliveryLog } from "@/lib/connectors/delivery/retention";
import { config } from "@/lib/core/config";
import { sqlPool } from "@/lib/db/client";
import { pruneExecutorHistory } from "@/lib/executor/store";
import { pruneExpiredIdempotencyRecords } from "@/lib/http/idempotency";
import { kickOutbox } from "@/lib/jobs/outbox";
import { shutdownOcr } from "@/lib/media/ocr";
import { shutdownNsfw, warmUpNsfw } from "@/lib/moderation/image/nsfw";
import { countProjects, createProject } from "@/lib/projects/provision";
import { runServer } from "@/lib/server/main";
import { startPeriodicTasks } from "@/lib/server/maintenance";

const MAINTENANCE_MS = 60_000;
const DEMO_ADMIN_EMAIL = "admin@sieve.local";

runServer({
  async prepare() {
    const signIn = `  Portal users: npm run --silent admin -- create-user --email E --password P --name N --project ID --role admin|member|viewer`;
    if ((await countProjects()) > 0) return ["  More projects and keys: npm run --silent admin -- create-project --name NAME", signIn];
    const demo = await createProject({ name: "Demo project", permissions: [...PERMISSIONS], ownerEmail: DEMO_ADMIN_EMAIL, ownerName: "Demo admin" });
    const password = randomBytes(12).toString("base64url");
    await setUserPassword({ email: DEMO_ADMIN_EMAIL, password });
    return [
      "  Demo project created (shown once; keep the key):",
      `    projectId: ${demo.projectId}`,
      `    apiKey:    ${demo.apiKey}`,
      `  Try: curl -H "X-Api-Key: ${demo.apiKey}" ${config().apiBaseUrl}/projects/${demo.projectId}/folders`,
      `  Portal (review queue and owner console): ${config().publicUrl}/login`,
      `    email:     ${DEMO_ADMIN_EMAIL}`,
      `    password:  ${password}   (shown once; change it: npm run --silent admin -- set-password --email ${DEMO_ADMIN_EMAIL} --password NEW)`,
      signIn,
    ];
  },
  started() {
    startCdnInvalidation();
    const stopDispatcher = startConnectorDispatcher();
    // Load the image model now rather than on the first image upload (about 0.8 s).
    warmUpNsfw().catch((error: Error) => console.error(`[sieve] image model did not load: ${error.message}`));
    const stopTasks = startPeriodicTasks([
      // Housekeeping: abandoned multipart uploads, expired idempotency records, executor history,
      // sessions, and the connectors' deliveries past their retention.
      {
        label: "maintenance",
        intervalMs: MAINTENANCE_MS,
        run: async () => {
          await expireAbandonedUploads();
          await pruneExpiredIdempotencyRecords();
          await pruneExecutorHistory(sqlPool());
          await pruneExpiredSessions();
          await pruneDeliveryLog(sqlPool(), config().connectors.deliveryRetentionDays);
        },
      },
      // The job outbox (at start too: what a crashed process left goes out at once), then pending
      // assets without a run, and assets long waiting for their labels.
      {
        label: "pipeline reconciliation",
        intervalMs: Math.min(MAINTENANCE_MS, config().pipeline.reconcileAfterSeconds * 1000),
        run: async () => {
          await kickOutbox();
          await reconcilePendingAssets();
          await reconcileLabelQueue();
        },
      },
    ]);
    return async () => {
      await Promise.all([stopTasks(), stopDispatcher()]);
    };
  },
  dispatch: dispatchCdn,
  // Serving processes hand their transforms here (one per key, within this process's memory bounds).
  cdnProcesses: { entry: fileURLToPath(new URL("./scripts/cdn-process.ts", import.meta.url)), answer: (job) => makeDerivedImage(job as DerivedJob) },
  async stop() {
    await Promise.allSettled([shutdownNsfw(), shutdownOcr()]);
  },
}).catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exit(1);
});
