/**
 * `npx tsx bench/moderation-eval.ts`: how the moderation pipeline decides real uploads, end to end
 * (production server on a throw-away embedded PostgreSQL, uploads with queue=false, decisions read
 * back with GET /v1/assets/{id}). Not a test: it prints tables and one summary line per group.
 *
 * Groups (data in bench/moderation-eval-cases.ts):
 * 1. held-out text: 20 harmful and 20 benign sentences, each in 5 envelopes (plain UTF-8, +NUL,
 *    declared application/x-foo, UTF-16LE with BOM, Latin-1).
 * 2. unanalysable content: must never end approved without a judgement.
 * 3. large images: must be judged (sexual evaluated), not skipped.
 *
 * Cell codes: A approved · A! approved with unavailable categories or unanalysed parts ("approved
 * unjudged") · A0 approved with no category judged at all · AL approved with action alert ·
 * R rejected by a moderation action · R? rejected with no moderation action (held as not analysed)
 * · E error · P still pending at the 60 s timeout · Hnnn the upload was refused with HTTP nnn.
 *
 * Uses only APIs present both before and after the fail-closed change (startTestServer,
 * ensureNextBuild, createProject, createApiKey, disconnectDb), so the same file runs on both trees.
 */
import {
  BENIGN_SENTENCES,
  ENVELOPES,
  HARMFUL_SENTENCES,
  LARGE_IMAGE_CASES,
  envelope,
  isAscii,
  unanalysableCases,
  type Envelope,
  type Upload,
} from "@/bench/moderation-eval-cases";
import { ensureNextBuild } from "@/lib/server/build";
import { startTestServer, type RunningServer } from "@/tests/support/test-server";

const POLL_TIMEOUT_MS = 60_000;
/** Cases not started after this many seconds of the run are reported as skipped. */
const RUN_BUDGET_MS = 270_000;
/** Last resort: the server is stopped and the process exits after this. */
const HARD_LIMIT_MS = 420_000;

interface Outcome {
  http: number;
  error: string | null;
  status: string;
  type: string;
  moderationAction: string | null;
  unavailable: string[];
  unanalysed: string[];
  judged: number;
  sexual: string;
  ms: number;
}

interface Ctx {
  server: RunningServer;
  apiKey: string;
  projectId: string;
  startedAt: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function skipped(reason: string): Outcome {
  return { http: 0, error: reason, status: "skipped", type: "-", moderationAction: null, unavailable: [], unanalysed: [], judged: 0, sexual: "-", ms: 0 };
}

async function call(url: string, init: RequestInit): Promise<{ http: number; body: any }> {
  const response = await fetch(url, { ...init, signal: AbortSignal.timeout(POLL_TIMEOUT_MS + 5_000) });
  const text = await response.text();
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    body = { raw: text.slice(0, 200) };
  }
  return { http: response.status, body };
}

function describe(http: number, asset: any, ms: number): Outcome {
  const categories: Record<string, any> = asset?.report?.categories ?? {};
  const entries = Object.entries(categories);
  const notes = asset?.report?.notes;
  const unanalysed = Array.isArray(notes?.unanalysed) ? notes.unanalysed : [];
  return {
    http,
    error: null,
    status: String(asset?.status ?? "?"),
    type: String(asset?.type ?? "?"),
    moderationAction: asset?.moderationAction ?? null,
    unavailable: entries.filter(([, e]) => e?.status === "not-evaluated" && e?.reason === "unavailable").map(([c]) => c),
    unanalysed: unanalysed.map((u: any) => `${u?.part ?? "?"} (${u?.reason ?? "?"})`),
    judged: entries.filter(([, e]) => e?.status === "evaluated" || e?.status === "partial").length,
    sexual: String(categories.sexual?.status ?? "-"),
    ms,
  };
}

/** Uploads with queue=false, then polls GET /v1/assets/{id} until the status is not pending. */
async function run(ctx: Ctx, name: string, upload: Upload): Promise<Outcome> {
  if (Date.now() - ctx.startedAt > RUN_BUDGET_MS) return skipped("run budget used up");
  const base = `${ctx.server.baseUrl}/v1`;
  const started = performance.now();
  let created: { http: number; body: any };
  try {
    created =
      upload.via === "json"
        ? await call(`${base}/projects/${ctx.projectId}/assets?queue=false`, {
            method: "POST",
            headers: { "X-Api-Key": ctx.apiKey, "Content-Type": "application/json" },
            body: JSON.stringify({ name, content: { type: upload.type, base64: upload.bytes.toString("base64") } }),
          })
        : await call(`${base}/projects/${ctx.projectId}/assets/upload?queue=false&name=${encodeURIComponent(name)}`, {
            method: "POST",
            headers: { "X-Api-Key": ctx.apiKey, "X-Service-Upload": "content", "Content-Type": upload.contentType },
            body: new Uint8Array(upload.bytes),
          });
  } catch (error) {
    return { ...skipped(`upload failed: ${(error as Error).message}`), status: "failed" };
  }
  if (created.http < 200 || created.http >= 300 || typeof created.body?.id !== "string") {
    const code = created.body?.error?.code ?? created.body?.code ?? JSON.stringify(created.body).slice(0, 80);
    return { ...skipped(String(code)), http: created.http, status: `HTTP ${created.http}`, ms: performance.now() - started };
  }
  const id: string = created.body.id;
  for (;;) {
    let got: { http: number; body: any };
    try {
      got = await call(`${base}/assets/${id}`, { headers: { "X-Api-Key": ctx.apiKey } });
    } catch (error) {
      return { ...skipped(`poll failed: ${(error as Error).message}`), status: "failed" };
    }
    const ms = performance.now() - started;
    const status = got.body?.status;
    if (got.http !== 200) return { ...skipped(`GET ${got.http}`), http: got.http, status: `HTTP ${got.http}`, ms };
    if ((status !== "pending" && status !== "uploading") || ms > POLL_TIMEOUT_MS) return describe(created.http, got.body, ms);
    await sleep(100);
  }
}

// ---- classification of outcomes -----------------------------------------------------------

const unjudged = (o: Outcome) => o.unavailable.length > 0 || o.unanalysed.length > 0;
const approvedUnjudged = (o: Outcome) => o.status === "approved" && unjudged(o);
const caught = (o: Outcome) => o.status === "rejected" || o.moderationAction === "alert";

function code(o: Outcome): string {
  if (o.status.startsWith("HTTP")) return `H${o.http}`;
  switch (o.status) {
    case "approved":
      if (o.moderationAction === "alert") return "AL";
      if (unjudged(o)) return "A!";
      return o.judged === 0 ? "A0" : "A";
    case "rejected":
      return o.moderationAction ? "R" : "R?";
    case "error":
      return "E";
    case "pending":
    case "uploading":
      return "P";
    default:
      return o.status.slice(0, 4);
  }
}

function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const fmt = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join("  ").trimEnd();
  return [fmt(headers), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(fmt)].join("\n");
}

const short = (text: string, n: number) => {
  const s = text.replace(/\s+/g, " ");
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
};

// ---- groups -------------------------------------------------------------------------------

async function textGroup(ctx: Ctx): Promise<string> {
  const sets = [
    { label: "harmful", sentences: HARMFUL_SENTENCES },
    { label: "benign", sentences: BENIGN_SENTENCES },
  ] as const;
  const results = new Map<string, Record<Envelope, Outcome>>();
  const rows: string[][] = [];
  for (const { label, sentences } of sets) {
    for (const [i, sentence] of sentences.entries()) {
      const byEnvelope = {} as Record<Envelope, Outcome>;
      for (const kind of ENVELOPES) byEnvelope[kind] = await run(ctx, `${label}-${i + 1}-${kind}.txt`, envelope(sentence, kind));
      results.set(`${label}:${i}`, byEnvelope);
      rows.push([
        `${label[0]!.toUpperCase()}${String(i + 1).padStart(2, "0")}`,
        ...ENVELOPES.map((k) => code(byEnvelope[k])),
        ENVELOPES.map((k) => byEnvelope[k].type.replace("plaintext-document", "text")).join("/"),
        isAscii(sentence) ? "" : "accents",
        short(sentence, 60),
      ]);
    }
  }
  console.log("\n== held-out text (cells: status code per envelope) ==");
  console.log(table(["case", ...ENVELOPES, "asset type per envelope", "", "sentence"], rows));

  const per = (label: "harmful" | "benign", kind: Envelope, test: (o: Outcome) => boolean) => {
    let n = 0;
    for (let i = 0; i < 20; i++) if (test(results.get(`${label}:${i}`)![kind])) n++;
    return n;
  };
  const detail = ENVELOPES.map((k) => {
    const held = per("harmful", k, (o) => o.status === "rejected" && !o.moderationAction);
    return `${k} ${per("harmful", k, caught)}/20${held ? ` (${held} only held as unanalysed)` : ""}`;
  });
  const benign = ENVELOPES.map((k) => `${k} ${per("benign", k, (o) => o.status === "approved")}/20`);
  const unjudgedApproved = ENVELOPES.map((k) => per("harmful", k, approvedUnjudged) + per("benign", k, approvedUnjudged));
  const zeroJudged = ENVELOPES.map((k) => per("harmful", k, (o) => o.status === "approved" && o.judged === 0) + per("benign", k, (o) => o.status === "approved" && o.judged === 0));
  const harmfulAccented = HARMFUL_SENTENCES.map((s, i) => (isAscii(s) ? -1 : i)).filter((i) => i >= 0);
  const latinAccented = harmfulAccented.filter((i) => caught(results.get(`harmful:${i}`)!["latin-1"])).length;
  const plainAccented = harmfulAccented.filter((i) => caught(results.get(`harmful:${i}`)!.plain)).length;
  const failures = [...results.values()].flatMap((r) => ENVELOPES.map((k) => r[k])).filter((o) => o.status === "failed" || o.status.startsWith("HTTP"));
  if (failures.length) console.log(`  upload failures/refusals: ${[...new Set(failures.map((o) => `${o.status}: ${o.error}`))].join("; ")}`);
  return (
    `held-out text: harmful caught ${detail.join(", ")}; benign approved ${benign.join(", ")}; ` +
    `approved unjudged (of 40) ${ENVELOPES.map((k, i) => `${k} ${unjudgedApproved[i]}`).join(", ")}; ` +
    `approved with 0 categories judged (of 40) ${ENVELOPES.map((k, i) => `${k} ${zeroJudged[i]}`).join(", ")}; ` +
    `accented harmful caught: plain ${plainAccented}/${harmfulAccented.length}, latin-1 ${latinAccented}/${harmfulAccented.length}`
  );
}

async function unanalysableGroup(ctx: Ctx): Promise<string> {
  const cases = await unanalysableCases();
  const rows: string[][] = [];
  const outcomes: Outcome[] = [];
  for (const c of cases) {
    const o = await run(ctx, c.name.replace(/[^\w.-]+/g, "-"), c.upload);
    outcomes.push(o);
    rows.push([
      c.name,
      String(c.upload.bytes.length),
      code(o),
      o.status,
      o.type,
      o.moderationAction ?? "-",
      String(o.judged),
      o.unavailable.join(",") || "-",
      short(o.unanalysed.join("; ") || o.error || "-", 70),
    ]);
  }
  console.log("\n== unanalysable content ==");
  console.log(table(["case", "bytes", "code", "status", "type", "action", "judged", "unavailable", "unanalysed / error"], rows));
  const approved = outcomes.filter((o) => o.status === "approved");
  const noneJudged = approved.filter((o) => o.judged === 0).length;
  const statuses = outcomes.map((o) => o.status).join(", ");
  return (
    `unanalysable: approved ${approved.length}/${outcomes.length} (unjudged ${approved.filter(unjudged).length}, ` +
    `no category judged ${noneJudged}); statuses: ${statuses}`
  );
}

async function largeImageGroup(ctx: Ctx): Promise<string> {
  const rows: string[][] = [];
  const parts: string[] = [];
  for (const c of LARGE_IMAGE_CASES) {
    if (Date.now() - ctx.startedAt > RUN_BUDGET_MS) {
      rows.push([c.name, "-", "-", "skipped", "-", "-", "-", "-", "run budget used up"]);
      parts.push(`${c.name} skipped`);
      continue;
    }
    const upload = await c.build();
    const o = await run(ctx, c.name.replace(/[^\w.-]+/g, "-"), upload);
    rows.push([
      c.name,
      String(upload.bytes.length),
      code(o),
      o.status,
      o.sexual,
      String(o.judged),
      `${(o.ms / 1000).toFixed(2)} s`,
      o.unavailable.join(",") || "-",
      short(o.unanalysed.join("; ") || o.error || "-", 70),
    ]);
    parts.push(`${c.name} ${o.status}${o.moderationAction ? `/${o.moderationAction}` : ""}, sexual ${o.sexual}, ${(o.ms / 1000).toFixed(1)} s`);
  }
  console.log("\n== large images ==");
  console.log(table(["case", "bytes", "code", "status", "sexual", "judged", "decided in", "unavailable", "unanalysed / error"], rows));
  return `large images: ${parts.join("; ")}`;
}

async function main() {
  await ensureNextBuild(process.cwd());
  const server = await startTestServer();
  const hardLimit = setTimeout(() => {
    console.error(`moderation-eval: hard limit of ${HARD_LIMIT_MS / 1000} s reached; stopping`);
    server.stop().finally(() => process.exit(2));
  }, HARD_LIMIT_MS);
  hardLimit.unref();
  try {
    const { createProject } = await import("@/lib/projects/provision");
    const { createApiKey } = await import("@/lib/auth/api-keys");
    const project = await createProject({ name: "moderation-eval", permissions: ["assets:write", "assets:read"] });
    const key = await createApiKey({ projectId: project.projectId, permissions: ["assets:write", "assets:read"], rateLimitPerSecond: 0 });
    const ctx: Ctx = { server, apiKey: key.apiKey, projectId: project.projectId, startedAt: Date.now() };
    const summaries = [await textGroup(ctx), await unanalysableGroup(ctx), await largeImageGroup(ctx)];
    console.log(`\n== summary (${process.cwd()}, ${((Date.now() - ctx.startedAt) / 1000).toFixed(0)} s of uploads) ==`);
    for (const s of summaries) console.log(s);
  } finally {
    const { disconnectDb } = await import("@/lib/db/client");
    await disconnectDb();
    await server.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
