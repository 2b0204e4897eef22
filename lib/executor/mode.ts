import crypto from "node:crypto";
import type pg from "pg";
import type { Config } from "@/lib/core/config";
import { EmbeddedExecutor } from "./executor";
import { servedInProcess } from "./in-process";
import { generateSigningKey } from "./signing";

/**
 * Chooses how Inngest functions run, by environment only:
 * - Inngest Cloud: INNGEST_SIGNING_KEY + INNGEST_EVENT_KEY;
 * - self-hosted Inngest: the same plus INNGEST_BASE_URL;
 * - Inngest dev server: INNGEST_DEV;
 * - otherwise the embedded executor, started here. It gets a fresh local signing key and event key
 *   for this process, so the SDK's signature checks on /api/inngest stay on.
 * Must run before Next.js loads the app (the SDK reads these variables when its client is built).
 */
export interface InngestRuntime {
  mode: Config["inngest"]["mode"];
  /** Starts running functions once the HTTP server serves /api/inngest. */
  start(serveOrigin: string): Promise<void>;
  stop(): Promise<void>;
}

export async function prepareInngest(cfg: Config, pool: pg.Pool): Promise<InngestRuntime> {
  const mode = cfg.inngest.mode;
  if (mode !== "embedded") {
    return { mode, start: async () => undefined, stop: async () => undefined };
  }
  const signingKey = generateSigningKey();
  const eventKey = crypto.randomBytes(24).toString("hex");
  const executor = new EmbeddedExecutor({
    pool,
    signingKey,
    eventKey,
    maxConcurrentRuns: cfg.executor.concurrency,
    retryBaseMs: cfg.executor.retryBaseMs,
    leaseMs: cfg.executor.leaseMs,
    stepTimeoutMs: cfg.executor.stepTimeoutMs,
    debug: cfg.executor.debug,
    serveHandler: servedInProcess,
  });
  // The event API must listen before Next.js loads: its URL is the SDK's INNGEST_BASE_URL.
  const eventApiUrl = await executor.listen();
  process.env.INNGEST_SIGNING_KEY = signingKey;
  process.env.INNGEST_EVENT_KEY = eventKey;
  process.env.INNGEST_BASE_URL = eventApiUrl;
  delete process.env.INNGEST_DEV;
  const jobs = await import("@/lib/jobs/client");
  jobs.reloadJobClientEnvironment();
  // This process's job messages go to the executor directly; the event API stays for other senders.
  jobs.sendJobsInProcess((events) => executor.sendEvents(events));
  return {
    mode,
    async start(serveOrigin) {
      executor.setServeUrl(`${serveOrigin}/api/inngest`);
      await executor.start();
    },
    async stop() {
      await executor.stop();
    },
  };
}
