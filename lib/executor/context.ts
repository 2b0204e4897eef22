import type pg from "pg";
import type { FunctionDefinition } from "./functions";
import type { ServeHandler } from "./in-process";

/** What the embedded executor's modules share: its options, its identity and the synced functions. */
export interface ExecutorOptions {
  pool: pg.Pool;
  /** Our serve() endpoint, e.g. http://127.0.0.1:3000/api/inngest (or set later with setServeUrl). */
  serveUrl?: string;
  signingKey: string;
  eventKey: string;
  maxConcurrentRuns?: number;
  leaseMs?: number;
  retryBaseMs?: number;
  stepTimeoutMs?: number;
  pollMs?: number;
  /** Log every call of the serve endpoint with its duration. */
  debug?: boolean;
  log?: (message: string) => void;
  /** The serve endpoint's handler when it runs in this process (in-process.ts); null: call over HTTP. */
  serveHandler?: () => ServeHandler | null;
}

export type ResolvedOptions = Required<Omit<ExecutorOptions, "log" | "serveHandler">> & Pick<ExecutorOptions, "serveHandler"> & { log: (message: string) => void };

export function resolveOptions(options: ExecutorOptions): ResolvedOptions {
  return {
    maxConcurrentRuns: 8,
    leaseMs: 15_000,
    retryBaseMs: 1_000,
    stepTimeoutMs: 10 * 60_000,
    pollMs: 500,
    debug: false,
    serveUrl: "",
    log: (message) => console.warn(`executor: ${message}`),
    ...options,
  };
}

export interface ExecutorContext {
  /** serveUrl may be set after construction (setServeUrl): read options when used, not copied. */
  readonly opts: ResolvedOptions;
  /** Owner of this process's leases. */
  readonly workerId: string;
  /** The functions of our serve() endpoint, by id, as of the last sync. */
  readonly functions: ReadonlyMap<string, FunctionDefinition>;
  /** A signing key mismatch is reported once per executor, not on every call. */
  warnedUnauthorized: boolean;
}
