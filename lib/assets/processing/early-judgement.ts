import { deleteLabelSources } from "@/lib/assets/labels/sources";
import { processSingleton } from "@/lib/core/singleton";
import { FIRST_GENERATION } from "./request";

/**
 * Early judgement of a `queue=false` image: the request holds the uploaded bytes in memory, so the
 * pipeline's consumer (registered by inngest/functions/process-asset.ts) starts judging them while
 * the upload is still being stored, recorded and handed to the job runner (~20 ms on the request's
 * path, mostly waiting on fsync and the database). The run that processes the asset in this process
 * takes the result instead of reading the bytes back and judging them again; a run in another process,
 * or one whose asset no longer matches the bytes, judges them itself. Either way the same bytes are
 * judged by the same code: this only moves the start earlier.
 *
 * Bounded: at most MAX_HELD_UPLOADS uploads held (the interactive lanes run 4 at once) and MAX_HELD_BYTES
 * of their bytes; an upload beyond either is judged by its run as usual. An entry nobody takes (the
 * create failed, the run went elsewhere) goes after TTL_MS.
 *
 * A judge may also store the labelling copies of the asset's first processing generation
 * (FIRST_GENERATION); those of an upload whose create failed are deleted again (abandonEarlyJudgement).
 */

export interface UploadedImage {
  projectId: string;
  assetId: string;
  bytes: Buffer;
  fileFormat: string;
  /** What the asset's imageData will be (describeImage). */
  imageData: object | null;
}

/** What the consumer made of the bytes; opaque here. */
export type EarlyWork = Promise<unknown>;
export type EarlyJudge = (upload: UploadedImage) => EarlyWork;

interface Entry {
  upload: UploadedImage;
  work: EarlyWork;
  /** The stored content's SHA-256, once stored: the asset row must record the same. */
  sha256: string | null;
  expiry: NodeJS.Timeout;
}

const MAX_HELD_UPLOADS = 4;
const MAX_HELD_BYTES = 64 * 1024 * 1024;
const TTL_MS = 120_000;

interface Registry {
  judge: EarlyJudge | null;
  entries: Map<string, Entry>;
  heldBytes: number;
}
const registry = () => processSingleton<Registry>("earlyJudgement", () => ({ judge: null, entries: new Map(), heldBytes: 0 }));

/** The pipeline offers its judge; without one, nothing starts early. */
export function offerEarlyJudge(judge: EarlyJudge | null): void {
  registry().judge = judge;
}

/** Starts judging an upload's bytes when a judge is offered and there is room; returns whether it did. */
export function startEarlyJudgement(upload: UploadedImage): boolean {
  const reg = registry();
  // Asset ids are fresh UUIDs: an upload is never started twice.
  if (!reg.judge || reg.entries.size >= MAX_HELD_UPLOADS) return false;
  if (reg.heldBytes + upload.bytes.length > MAX_HELD_BYTES) return false;
  let work: EarlyWork;
  try {
    work = reg.judge(upload);
  } catch {
    return false;
  }
  // Whoever takes it sees a failure; left alone, it must not be an unhandled rejection.
  work.catch(() => undefined);
  const expiry = setTimeout(() => dropEarlyJudgement(upload.assetId), TTL_MS);
  expiry.unref();
  reg.entries.set(upload.assetId, { upload, work, sha256: null, expiry });
  reg.heldBytes += upload.bytes.length;
  return true;
}

/** Records the stored content's digest: only a row with this digest may take the judgement. */
export function earlyJudgementStored(assetId: string, sha256: string): void {
  const entry = registry().entries.get(assetId);
  if (entry) entry.sha256 = sha256;
}

/** The create failed: forgets the judgement and, once it settles, deletes the copies it stored. */
export function abandonEarlyJudgement(assetId: string): void {
  const entry = registry().entries.get(assetId);
  if (!entry) return;
  dropEarlyJudgement(assetId);
  const copies = { projectId: entry.upload.projectId, assetId, generation: FIRST_GENERATION };
  void entry.work
    .catch(() => undefined)
    .then(() => deleteLabelSources(copies))
    .catch(() => undefined);
}

/** Forgets an upload's judgement (taken, or expired). */
function dropEarlyJudgement(assetId: string): void {
  const reg = registry();
  const entry = reg.entries.get(assetId);
  if (!entry) return;
  clearTimeout(entry.expiry);
  reg.entries.delete(assetId);
  reg.heldBytes -= entry.upload.bytes.length;
}

/** What the asset row says about its content, to match against the judged upload. */
export interface StoredImageFacts {
  id: string;
  fileFormat: string | null;
  imageData: unknown;
  checksums: unknown;
}

/**
 * The upload's bytes and judgement, once, if the row describes exactly those bytes (same digest,
 * format and header facts); otherwise null (and the entry is dropped either way).
 */
export function takeEarlyJudgement(row: StoredImageFacts): { bytes: Buffer; work: EarlyWork } | null {
  const entry = registry().entries.get(row.id);
  if (!entry) return null;
  dropEarlyJudgement(row.id);
  const { upload } = entry;
  const sha256 = (row.checksums as { sha256?: unknown } | null)?.sha256;
  const matches =
    entry.sha256 !== null &&
    sha256 === entry.sha256 &&
    row.fileFormat === upload.fileFormat &&
    canonicalJson(row.imageData ?? null) === canonicalJson(upload.imageData);
  return matches ? { bytes: upload.bytes, work: entry.work } : null;
}

/** JSON with object keys sorted: a row read back from jsonb has its keys in another order. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}
