import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import next from "next";
import { config } from "@/lib/core/config";
import { sqlPool } from "@/lib/db/client";
import { prepareInngest } from "@/lib/executor/mode";
import { ensureDatabase } from "@/lib/db/database";
import { ensureNextBuild } from "@/lib/server/build";
import { keepEnvironmentInMemory } from "@/lib/server/environment";
import { startCdnProcesses, type CdnProcesses } from "@/lib/server/cdn-processes";
import { CLIENT_ADDRESS_HEADER } from "@/lib/server/client-address";
import { answerClientError, refuseMalformedUrl } from "@/lib/server/malformed-requests";
import { keepRawQuery } from "@/lib/server/raw-query";
import { closeConnectionIfBodyUnread } from "@/lib/server/unread-bodies";

/**
 * What the application plugs into the server (server.ts composes it): the server itself knows no
 * domain.
 */
export interface ServerHooks {
  /** Once the database is ready, before Next.js loads; returns lines for the start banner. */
  prepare(): Promise<string[]>;
  /** Once the server listens and runs functions: background work; returns its stop function (resolving once it is over). */
  started(): () => Promise<void>;
  /** On shutdown, before the database stops. */
  stop(): Promise<void>;
  /**
   * Answers a request below Next.js (the CDN's hot path) and returns true, or returns false to let
   * Next.js answer it.
   */
  dispatch?(req: http.IncomingMessage, res: http.ServerResponse, requestId: string): boolean;
  /** CDN serving processes (lib/server/cdn-processes.ts): the module they run, and what answers their questions. */
  cdnProcesses?: { entry: string; answer(question: unknown): Promise<unknown> };
}

export async function runServer(hooks: ServerHooks): Promise<void> {
  keepEnvironmentInMemory();
  process.env.NEXT_TELEMETRY_DISABLED ??= "1";
  const cfg = config();
  const dev = cfg.dev;
  const dir = process.cwd();

  const database = await ensureDatabase();
  const banner = await hooks.prepare();
  if (!dev) await ensureNextBuild(dir);
  // Before Next.js loads: in embedded mode this sets the Inngest variables the SDK reads.
  const inngestRuntime = await prepareInngest(cfg, sqlPool());

  const app = next({ dev, dir, hostname: cfg.host, port: cfg.port });
  await app.prepare();
  const handleNext = app.getRequestHandler();

  const server = http.createServer((req, res) => {
    // One id per request, set before Next.js runs so every response carries it (404s included).
    const requestId = randomUUID();
    // First, before any per-request work Next.js needs: the CDN's hot path answers on its own.
    if (hooks.dispatch?.(req, res, requestId)) return;
    req.headers["x-request-id"] = requestId;
    // The peer's address, for the sign-in limits (never taken from the client's own headers).
    req.headers[CLIENT_ADDRESS_HEADER] = req.socket.remoteAddress ?? "unknown";
    res.setHeader("X-Request-Id", requestId);
    keepRawQuery(req);
    closeConnectionIfBodyUnread(req, res);
    if (refuseMalformedUrl(req, res, requestId)) return;
    void handleNext(req, res);
  });
  server.on("clientError", (error: NodeJS.ErrnoException, socket) => answerClientError(error, socket, randomUUID()));
  server.keepAliveTimeout = 65_000;
  // Before the main port opens: once the API answers, so does the CDN port.
  const cdnProcesses =
    hooks.cdnProcesses && cfg.cdn.processes > 0
      ? await startCdnProcesses(hooks.cdnProcesses.entry, cfg.cdn.processes, cfg.cdn.port, hooks.cdnProcesses.answer)
      : null;

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(cfg.port, cfg.host, resolve);
  });
  await inngestRuntime.start(originOf(cfg.host, (server.address() as AddressInfo).port, "127.0.0.1"));
  const stopBackground = hooks.started();

  printBanner(cfg, database.embedded, [...cdnBanner(cfg.host, cdnProcesses), ...banner]);

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`[sieve] ${signal} received, shutting down`);
    await stopBackground().catch((error: Error) => console.error(`[sieve] background work did not stop cleanly: ${error.message}`));
    await cdnProcesses?.stop();
    await inngestRuntime.stop().catch(() => undefined);
    await hooks.stop().catch(() => undefined);
    server.closeIdleConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await database.stop().catch(() => undefined);
    process.exit(0);
  };
  process.once("SIGINT", () => void shutdown("SIGINT"));
  process.once("SIGTERM", () => void shutdown("SIGTERM"));
}

/**
 * `http://host:port` for a listening address; a wildcard host (all interfaces) becomes `anyHost`:
 * 127.0.0.1 for this process's own calls (the embedded executor reaches /api/inngest through it),
 * localhost for the banner.
 */
function originOf(host: string, port: number, anyHost: string): string {
  const h = ["0.0.0.0", "::", "", "localhost"].includes(host) ? anyHost : host.includes(":") ? `[${host}]` : host;
  return `http://${h}:${port}`;
}

function cdnBanner(host: string, processes: CdnProcesses | null): string[] {
  if (!processes) return [];
  return [
    `  CDN port:      ${originOf(host, processes.port, "localhost")}/cdn/v1 (${processes.count} serving processes; the fast way to the same CDN: point CDN_BASE_URL at it)`,
    "",
  ];
}

function printBanner(cfg: ReturnType<typeof config>, embedded: boolean, more: string[]) {
  const lines = [
    "",
    "Sieve is running",
    `  API base URL:  ${cfg.apiBaseUrl}`,
    `  CDN base URL:  ${cfg.cdnBaseUrl}`,
    `  OpenAPI:       ${cfg.apiBaseUrl}/openapi.json`,
    `  Database:      ${embedded ? `embedded PostgreSQL (data in ${cfg.dataDir})` : "DATABASE_URL"}`,
    `  Pipeline:      ${cfg.inngest.mode === "embedded" ? "embedded Inngest executor (state in PostgreSQL)" : `Inngest (${cfg.inngest.mode})`}`,
    "",
    ...more,
  ];
  console.log(lines.join("\n") + "\n");
}
