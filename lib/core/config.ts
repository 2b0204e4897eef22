import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { parseDuration } from "./durations";

/**
 * All configuration, read and validated once from the environment. Every variable is listed in the
 * README's configuration table; nothing else in the code reads process.env for settings.
 */
const bool = z
  .enum(["true", "false", "1", "0", ""])
  .transform((v) => v === "true" || v === "1");

const int = (min = 0) => z.coerce.number().int().min(min);

const envSchema = z.object({
  PORT: int(0).max(65535).default(3000),
  HOST: z.string().default("0.0.0.0"),
  PUBLIC_URL: z.string().url().optional(),
  DATA_DIR: z.string().default(".data"),
  DATABASE_URL: z.string().optional(),
  DATABASE_POOL_SIZE: int(1).default(10),
  SIEVE_EMBEDDED_PG_PORT: int(0).max(65535).default(0),
  SIEVE_STORAGE_DRIVER: z.enum(["fs", "s3"]).default("fs"),
  S3_BUCKET: z.string().optional(),
  S3_REGION: z.string().default("us-east-1"),
  S3_ENDPOINT: z.string().url().optional(),
  S3_ACCESS_KEY_ID: z.string().optional(),
  S3_SECRET_ACCESS_KEY: z.string().optional(),
  S3_FORCE_PATH_STYLE: bool.default(false),
  S3_PREFIX: z.string().default(""),
  SIEVE_ALLOW_PRIVATE_NETWORKS: bool.default(false),
  SIEVE_RATE_LIMIT_PER_SECOND: int(0).default(100),
  SIEVE_RATE_LIMIT_BURST: int(0).default(200),
  SIEVE_FREE_UPLOAD_ALLOWANCE: int(0).default(100_000),
  SIEVE_MAX_UPLOAD_BYTES: int(1).default(1024 * 1024 * 1024),
  SIEVE_MAX_JSON_BODY_BYTES: int(1024).default(64 * 1024 * 1024),
  SIEVE_REMOTE_FETCH_TIMEOUT_MS: int(100).default(15_000),
  SIEVE_REMOTE_FETCH_MAX_REDIRECTS: int(0).default(5),
  SIEVE_UPLOAD_EXPIRY_SECONDS: int(1).default(24 * 60 * 60),
  SIEVE_IDEMPOTENCY_TTL_SECONDS: int(60).default(24 * 60 * 60),
  SIEVE_DEV: bool.default(false),
  CDN_BASE_URL: z.string().url().optional(),
  CDN_SIGNING_KEYS: z
    .string()
    .regex(/^([A-Za-z0-9_-]{1,32}:[A-Za-z0-9+/=_-]{32,})(,[A-Za-z0-9_-]{1,32}:[A-Za-z0-9+/=_-]{32,})*$/, "must be id:secret[,id:secret...] with secrets of at least 32 characters")
    .optional(),
  CDN_MEMORY_CACHE_MB: int(0).default(256),
  CDN_MAX_TRANSFORM_INPUT_PIXELS: int(1).default(100_000_000),
  CDN_PROCESSES: int(0).max(64).optional(),
  CDN_PORT: int(0).max(65535).optional(),
  CONNECTOR_RETRY_SCHEDULE: z
    .string()
    .default("5s,5m,30m,2h,5h,10h,10h")
    .transform((list, ctx) => {
      const waits = list.split(",").map((part) => parseDuration(part));
      if (waits.every((ms): ms is number => ms !== undefined)) return waits;
      ctx.addIssue({ code: "custom", message: "must be durations like 5s,5m,30m,2h" });
      return z.NEVER;
    }),
  CONNECTOR_TIMEOUT_MS: int(100).default(15_000),
  CONNECTOR_DISABLE_AFTER_FAILURES: int(1).default(50),
  CONNECTOR_DISABLE_AFTER_FAILING_SECONDS: int(0).default(3600),
  CONNECTOR_SECRET_GRACE_SECONDS: int(0).default(24 * 60 * 60),
  CONNECTOR_SWEEP_AFTER_SECONDS: int(1).default(60),
  CONNECTOR_DELIVERY_RETENTION_DAYS: int(0).default(30),
  SMTP_URL: z.string().url().optional(),
  SMTP_FROM: z.string().default("Sieve <sieve@localhost>"),
  // Portal sign-in (lib/auth/sessions.ts): Auth.js's secret (else one kept in DATA_DIR), session
  // lifetime (sliding: extended at most once per SESSION_UPDATE_AGE_SECONDS of use), login limits.
  AUTH_SECRET: z.string().min(32).optional(),
  SESSION_MAX_AGE_SECONDS: int(60).default(12 * 60 * 60),
  SESSION_UPDATE_AGE_SECONDS: int(0).default(15 * 60),
  LOGIN_ATTEMPTS_PER_MINUTE: int(1).default(5),
  // Inngest: the SDK reads these itself; they also choose the mode (see lib/executor/mode.ts).
  INNGEST_SIGNING_KEY: z.string().optional(),
  INNGEST_EVENT_KEY: z.string().optional(),
  INNGEST_BASE_URL: z.string().url().optional(),
  INNGEST_DEV: z.string().optional(),
  SIEVE_EXECUTOR_CONCURRENCY: int(1).default(8),
  SIEVE_EXECUTOR_RETRY_BASE_MS: int(1).default(1000),
  SIEVE_EXECUTOR_LEASE_MS: int(1000).default(15_000),
  SIEVE_EXECUTOR_STEP_TIMEOUT_MS: int(1000).default(10 * 60_000),
  SIEVE_EXECUTOR_DEBUG: bool.default(false),
  SIEVE_SYNC_DECISION_TIMEOUT_MS: int(0).default(10_000),
  SIEVE_JOB_SEND_TIMEOUT_MS: int(100).default(15_000),
  SIEVE_PROCESSING_RECONCILE_SECONDS: int(5).default(120),
  SIEVE_CLASSIFIER_PROVIDERS: z.string().default("local"),
  SIEVE_IMAGE_MODEL_WORKERS: int(1).max(16).default(1),
  SIEVE_IMAGE_MODEL_THREADS: int(1).max(16).optional(),
  // Object, colour and face labels for images and video frames (lib/assets/labels), after the decision.
  SIEVE_IMAGE_LABELS: bool.default(true),
  SIEVE_IMAGE_LABELS_YIELD_MS: int(0).default(600_000),
  // Who labels (lib/assets/labels/providers.ts): `detector` (the shipped models, always) and
  // `describer` (a vision-language model behind an OpenAI-compatible chat-completions endpoint
  // writes a sentence about each image, and search reads its words).
  SIEVE_IMAGE_LABEL_PROVIDERS: z
    .string()
    .default("detector")
    .transform((value) => value.split(",").map((p) => p.trim()).filter(Boolean))
    .pipe(
      z
        .array(z.enum(["detector", "describer"], { error: "each must be detector or describer" }))
        .refine((list) => list.includes("detector"), "must include detector (the describer adds to its labels)"),
    ),
  SIEVE_IMAGE_DESCRIBER_BASE_URL: z.url({ protocol: /^https?$/, error: "must be an http(s) URL such as http://localhost:11434/v1" }).optional(),
  SIEVE_IMAGE_DESCRIBER_MODEL: z.string().min(1).optional(),
  SIEVE_IMAGE_DESCRIBER_API_KEY: z.string().optional(),
  SIEVE_IMAGE_DESCRIBER_TIMEOUT_MS: int(100).default(60_000),
  SIEVE_IMAGE_DESCRIBER_RETRIES: int(0).max(5).default(2),
  SIEVE_CLASSIFIER_TIMEOUT_MS: int(100).default(20_000),
  SIEVE_OPENAI_MODERATION_URL: z.string().url().optional(),
  SIEVE_OPENAI_MODERATION_KEY: z.string().optional(),
  SIEVE_OPENAI_MODERATION_MODEL: z.string().default("omni-moderation-latest"),
  // The `llm` provider (lib/moderation/providers/llm.ts): a safety model behind an OpenAI-compatible
  // chat-completions endpoint. The family is told from the model name unless set.
  SIEVE_LLM_BASE_URL: z.url({ protocol: /^https?$/, error: "must be an http(s) URL such as http://localhost:11434/v1" }).optional(),
  SIEVE_LLM_MODEL: z.string().min(1).optional(),
  SIEVE_LLM_API_KEY: z.string().optional(),
  SIEVE_LLM_FAMILY: z.enum(["llama-guard", "shieldgemma", "gpt-oss-safeguard"]).optional(),
  SIEVE_LLM_TIMEOUT_MS: int(100).default(10_000),
  SIEVE_LLM_RETRIES: int(0).max(5).default(2),
  SIEVE_LLM_MAX_INPUT_CHARS: int(500).default(6000),
  SIEVE_LLM_MAX_CHUNKS: int(1).default(8),
});

export type Config = ReturnType<typeof loadConfig>;

export function loadConfig(env: NodeJS.ProcessEnv = process.env) {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new Error(`Invalid configuration: ${problems}`);
  }
  const e = parsed.data;
  if (e.SIEVE_IMAGE_LABEL_PROVIDERS.includes("describer") && (!e.SIEVE_IMAGE_DESCRIBER_BASE_URL || !e.SIEVE_IMAGE_DESCRIBER_MODEL)) {
    throw new Error("Invalid configuration: SIEVE_IMAGE_LABEL_PROVIDERS: describer needs SIEVE_IMAGE_DESCRIBER_BASE_URL and SIEVE_IMAGE_DESCRIBER_MODEL");
  }
  const dataDir = path.resolve(e.DATA_DIR);
  const publicUrl = (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, "");
  return {
    port: e.PORT,
    host: e.HOST,
    publicUrl,
    apiBaseUrl: `${publicUrl}/v1`,
    cdnBaseUrl: (e.CDN_BASE_URL ?? `${publicUrl}/cdn/v1`).replace(/\/+$/, ""),
    cdn: {
      /** Signing keys from the environment (first signs, all verify); else keys kept in the database. */
      signingKeys: e.CDN_SIGNING_KEYS?.split(",").map((pair) => {
        const at = pair.indexOf(":");
        return { id: pair.slice(0, at), secret: Buffer.from(pair.slice(at + 1), "utf8") };
      }),
      memoryCacheBytes: e.CDN_MEMORY_CACHE_MB * 1024 * 1024,
      maxTransformInputPixels: e.CDN_MAX_TRANSFORM_INPUT_PIXELS,
      /**
       * Processes that serve only the CDN on a port of their own (lib/server/cdn-processes.ts):
       * none under `next dev`, else one per core (at most 4).
       */
      processes: e.CDN_PROCESSES ?? (e.SIEVE_DEV ? 0 : Math.min(4, os.availableParallelism())),
      /** Their port: the API's plus one unless set (0 = any free port, as PORT=0). */
      port: e.CDN_PORT ?? (e.PORT === 0 || e.PORT === 65535 ? 0 : e.PORT + 1),
    },
    dataDir,
    databaseUrl: e.DATABASE_URL,
    databasePoolSize: e.DATABASE_POOL_SIZE,
    embeddedPgPort: e.SIEVE_EMBEDDED_PG_PORT,
    storage: {
      driver: e.SIEVE_STORAGE_DRIVER,
      fsRoot: path.join(dataDir, "storage"),
      s3: {
        bucket: e.S3_BUCKET,
        region: e.S3_REGION,
        endpoint: e.S3_ENDPOINT,
        accessKeyId: e.S3_ACCESS_KEY_ID,
        secretAccessKey: e.S3_SECRET_ACCESS_KEY,
        forcePathStyle: e.S3_FORCE_PATH_STYLE,
        prefix: e.S3_PREFIX,
      },
    },
    allowPrivateNetworks: e.SIEVE_ALLOW_PRIVATE_NETWORKS,
    rateLimit: { perSecond: e.SIEVE_RATE_LIMIT_PER_SECOND, burst: e.SIEVE_RATE_LIMIT_BURST },
    freeUploadAllowance: e.SIEVE_FREE_UPLOAD_ALLOWANCE,
    limits: {
      maxUploadBytes: e.SIEVE_MAX_UPLOAD_BYTES,
      maxJsonBodyBytes: e.SIEVE_MAX_JSON_BODY_BYTES,
      /** Direct image uploads must be smaller than this (spec: "smaller than 10 MB"). */
      directImageBytes: 10 * 1024 * 1024,
      /** Images up to and including this size may arrive through multipart upload. */
      multipartImageBytes: 20 * 1024 * 1024,
    },
    remoteFetch: {
      timeoutMs: e.SIEVE_REMOTE_FETCH_TIMEOUT_MS,
      maxRedirects: e.SIEVE_REMOTE_FETCH_MAX_REDIRECTS,
    },
    uploadExpirySeconds: e.SIEVE_UPLOAD_EXPIRY_SECONDS,
    idempotencyTtlSeconds: e.SIEVE_IDEMPOTENCY_TTL_SECONDS,
    dev: e.SIEVE_DEV,
    connectors: {
      /** Waits before the 2nd, 3rd, … attempt of a delivery (the first is immediate), in ms. */
      retryScheduleMs: e.CONNECTOR_RETRY_SCHEDULE,
      timeoutMs: e.CONNECTOR_TIMEOUT_MS,
      /** A connector is turned off after this many failed attempts in a row… */
      disableAfterFailures: e.CONNECTOR_DISABLE_AFTER_FAILURES,
      /** …once it has been failing for at least this long (a short outage never disables it). */
      disableAfterFailingMs: e.CONNECTOR_DISABLE_AFTER_FAILING_SECONDS * 1000,
      /** After a secret rotation the previous secret still signs for this long. */
      secretGraceMs: e.CONNECTOR_SECRET_GRACE_SECONDS * 1000,
      /**
       * A delivery a crash left unwritten or unattempted this long is written and queued by the
       * sweep; above the longest a live first attempt takes (a 20 s wait for its turn + the timeout).
       */
      sweepAfterSeconds: e.CONNECTOR_SWEEP_AFTER_SECONDS,
      /** Deliveries (not pending) are deleted with their attempts this many days after their creation; 0 keeps them. */
      deliveryRetentionDays: e.CONNECTOR_DELIVERY_RETENTION_DAYS,
      smtp: { url: e.SMTP_URL, from: e.SMTP_FROM },
    },
    portal: {
      authSecret: e.AUTH_SECRET,
      sessionMaxAgeSeconds: e.SESSION_MAX_AGE_SECONDS,
      sessionUpdateAgeSeconds: e.SESSION_UPDATE_AGE_SECONDS,
      /** Failed sign-ins allowed per minute for one email, and (×4) for one client address. */
      loginAttemptsPerMinute: e.LOGIN_ATTEMPTS_PER_MINUTE,
      /** Session cookies are `Secure` when the public URL is https. */
      secureCookies: publicUrl.startsWith("https://"),
    },
    inngest: {
      /** Embedded executor unless an Inngest server (Cloud, self-hosted or dev) is configured. */
      mode: (e.INNGEST_DEV ? "dev" : e.INNGEST_SIGNING_KEY ? (e.INNGEST_BASE_URL ? "self-hosted" : "cloud") : "embedded") as
        | "embedded"
        | "cloud"
        | "self-hosted"
        | "dev",
    },
    executor: {
      concurrency: e.SIEVE_EXECUTOR_CONCURRENCY,
      retryBaseMs: e.SIEVE_EXECUTOR_RETRY_BASE_MS,
      leaseMs: e.SIEVE_EXECUTOR_LEASE_MS,
      stepTimeoutMs: e.SIEVE_EXECUTOR_STEP_TIMEOUT_MS,
      debug: e.SIEVE_EXECUTOR_DEBUG,
    },
    pipeline: {
      /** How long a queue=false text/image upload waits for its decision before answering `pending`. */
      syncDecisionTimeoutMs: e.SIEVE_SYNC_DECISION_TIMEOUT_MS,
      /** A job send to Inngest that has not answered by then counts as failed (the outbox retries). */
      jobSendTimeoutMs: e.SIEVE_JOB_SEND_TIMEOUT_MS,
      /** Pending assets older than this are handed to the pipeline again (deduplicated by event id). */
      reconcileAfterSeconds: e.SIEVE_PROCESSING_RECONCILE_SECONDS,
      /** Whether images and video frames get object, colour and face labels after their decision. */
      imageLabels: e.SIEVE_IMAGE_LABELS,
      /** The longest an asset's labels wait for moderation in the same process to go quiet, from its decision. */
      imageLabelsYieldMs: e.SIEVE_IMAGE_LABELS_YIELD_MS,
      /** Who labels images: the detector, and the describer when listed. */
      imageLabelProviders: e.SIEVE_IMAGE_LABEL_PROVIDERS,
      imageDescriber: {
        baseUrl: e.SIEVE_IMAGE_DESCRIBER_BASE_URL,
        model: e.SIEVE_IMAGE_DESCRIBER_MODEL,
        apiKey: e.SIEVE_IMAGE_DESCRIBER_API_KEY,
        attemptTimeoutMs: e.SIEVE_IMAGE_DESCRIBER_TIMEOUT_MS,
        retries: e.SIEVE_IMAGE_DESCRIBER_RETRIES,
      },
    },
    classifiers: {
      /** Comma-separated: `local` (rules + nsfwjs + OCR), `openai` (an OpenAI-moderation-compatible API), `llm` (a safety model behind a chat-completions API). */
      providers: e.SIEVE_CLASSIFIER_PROVIDERS.split(",").map((p) => p.trim()).filter(Boolean),
      /** Worker processes running the image model (nsfwjs on onnxruntime). */
      imageModelWorkers: e.SIEVE_IMAGE_MODEL_WORKERS,
      /**
       * Threads of one inference. Two make an image's verdict ~2.5 ms faster (5.6 against 8 ms) for
       * ~20 % more CPU; one worker at that speed classifies ~180 images/s.
       */
      imageModelThreads: e.SIEVE_IMAGE_MODEL_THREADS ?? Math.min(2, os.availableParallelism()),
      timeoutMs: e.SIEVE_CLASSIFIER_TIMEOUT_MS,
      openai: { baseUrl: e.SIEVE_OPENAI_MODERATION_URL, apiKey: e.SIEVE_OPENAI_MODERATION_KEY, model: e.SIEVE_OPENAI_MODERATION_MODEL },
      llm: {
        baseUrl: e.SIEVE_LLM_BASE_URL,
        model: e.SIEVE_LLM_MODEL,
        apiKey: e.SIEVE_LLM_API_KEY,
        family: e.SIEVE_LLM_FAMILY,
        /** Per attempt; all attempts together stay within `timeoutMs`. */
        attemptTimeoutMs: e.SIEVE_LLM_TIMEOUT_MS,
        retries: e.SIEVE_LLM_RETRIES,
        maxInputChars: e.SIEVE_LLM_MAX_INPUT_CHARS,
        maxChunks: e.SIEVE_LLM_MAX_CHUNKS,
      },
    },
  };
}

let cached: Config | undefined;

/** The process-wide configuration (parsed on first use). */
export function config(): Config {
  cached ??= loadConfig();
  return cached;
}
