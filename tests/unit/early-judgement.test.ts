import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { UploadedImage } from "@/lib/assets/processing/early-judgement";
import { startMigratedDatabase, type MigratedDatabase } from "@/tests/support/migrated-database";

/**
 * Early judgement of queue=false images (lib/assets/processing/early-judgement.ts) against a real
 * database and file storage: the run takes the judgement the upload started, only for a row that
 * describes exactly the judged bytes; an upload whose create fails leaves no labelling copies.
 */
let database: MigratedDatabase;
let dataDir: string;
let early: typeof import("@/lib/assets/processing/early-judgement");
let judgement: typeof import("@/lib/moderation/pipeline/image-judgement");
let ingestContent: typeof import("@/lib/assets/ingest").ingestContent;
let analyzeAsset: typeof import("@/lib/moderation/pipeline/analyze").analyzeAsset;
let db: typeof import("@/lib/db/client").db;
let storage: typeof import("@/lib/storage").storage;
let labelSourceKey: typeof import("@/lib/assets/storage-keys").labelSourceKey;
let target: { projectId: string; ownerUserId: string };

const judged: string[] = [];
/** A hold no real hash list gives: an analysis that reports it used the early judgement. */
const MARKER_HOLD = { reason: "early", source: "hash-list", list: "early-marker", label: null, hash: "0".repeat(16), distance: 0, where: "image" };

beforeAll(async () => {
  database = await startMigratedDatabase("early-judgement");
  dataDir = mkdtempSync(path.join(os.tmpdir(), "sieve-early-"));
  vi.stubEnv("DATABASE_URL", database.url);
  vi.stubEnv("DATA_DIR", dataDir);
  early = await import("@/lib/assets/processing/early-judgement");
  judgement = await import("@/lib/moderation/pipeline/image-judgement");
  ({ ingestContent } = await import("@/lib/assets/ingest"));
  ({ analyzeAsset } = await import("@/lib/moderation/pipeline/analyze"));
  ({ db } = await import("@/lib/db/client"));
  ({ storage } = await import("@/lib/storage"));
  ({ labelSourceKey } = await import("@/lib/assets/storage-keys"));
  const { createProject } = await import("@/lib/projects/provision");
  const project = await createProject({ name: "early", permissions: ["assets:write"] });
  target = { projectId: project.projectId, ownerUserId: project.ownerUserId };
}, 120_000);

afterAll(async () => {
  early?.offerEarlyJudge(null);
  const { disconnectDb } = await import("@/lib/db/client");
  await disconnectDb();
  await database?.stop();
  rmSync(dataDir, { recursive: true, force: true });
  vi.unstubAllEnvs();
});

beforeEach(() => {
  judged.length = 0;
  // The real judge, with the hash-list result replaced by a marker.
  early.offerEarlyJudge((upload: UploadedImage) => {
    judged.push(upload.assetId);
    return judgement.earlyImageJudge(upload).then((settled) => {
      const work = settled as { judged: { hashes: unknown } | null };
      if (work.judged) work.judged.hashes = { ok: true, finding: MARKER_HOLD };
      return settled;
    });
  });
});

const photo = (seed: number) => sharp({ create: { width: 320, height: 240, channels: 3, background: { r: seed, g: 120, b: 200 } } }).jpeg().toBuffer();
const draft = (queued: boolean, externalId?: string) => ({ ...target, queued, fields: { name: "photo.jpg", ...(externalId && { externalId }) } });
const analyse = (row: { id: string; projectId: string; processingGeneration: number }) =>
  analyzeAsset({ assetId: row.id, projectId: row.projectId, generation: row.processingGeneration, lane: "interactive-0" });
const exists = async (key: string) => (await storage().get(key).then((o) => (o?.body.destroy(), o !== null)));

describe("early judgement", () => {
  it("a queue=false image's run uses the judgement its upload started, with its labelling copy", async () => {
    const row = await ingestContent(draft(false), { source: await photo(10), declaredType: "image/jpeg" });
    expect(judged).toEqual([row.id]);
    const analysis = await analyse(row);
    expect(analysis?.hold).toEqual(MARKER_HOLD);
    expect(analysis?.report.categories.sexual).toMatchObject({ status: "evaluated" });
    expect(analysis?.labelSources).toEqual({ count: 1, frames: false });
    expect(await exists(labelSourceKey(row.projectId, row.id, 0, 0))).toBe(true);

    // Taken once: judging the asset again reads and judges the stored bytes.
    const again = await analyse(row);
    expect(again?.hold).toBeNull();
    expect(again?.report.categories.sexual).toEqual(analysis?.report.categories.sexual);
  });

  it("queued uploads are judged by their run only", async () => {
    const row = await ingestContent(draft(true), { source: await photo(20), declaredType: "image/jpeg" });
    expect(judged).toEqual([]);
    expect((await analyse(row))?.hold).toBeNull();
  });

  it("a row that does not describe the judged bytes is judged from storage", async () => {
    const row = await ingestContent(draft(false), { source: await photo(30), declaredType: "image/jpeg" });
    const other = await db().asset.update({ where: { id: row.id }, data: { checksums: { sha256: "f".repeat(64), md5: "0".repeat(32) } } });
    expect((await analyse(other))?.hold).toBeNull();
  });

  it("a create that fails deletes the labelling copy its judgement stored", async () => {
    const first = await ingestContent(draft(false, "taken"), { source: await photo(40), declaredType: "image/jpeg" });
    await analyse(first);
    judged.length = 0;
    await expect(ingestContent(draft(false, "taken"), { source: await photo(50), declaredType: "image/jpeg" })).rejects.toMatchObject({ code: "asset/duplicate-external-id" });
    const [failedId] = judged;
    expect(failedId).toBeDefined();
    await vi.waitFor(async () => expect(await exists(labelSourceKey(target.projectId, failedId!, 0, 0))).toBe(false), { timeout: 5000 });
    expect(await db().asset.findUnique({ where: { id: failedId! } })).toBeNull();
  });
});

describe("early judgement limits", () => {
  const upload = (assetId: string, bytes = Buffer.alloc(10)): UploadedImage => ({ projectId: target.projectId, assetId, bytes, fileFormat: "image/jpeg", imageData: { width: 1, height: 2 } });
  const facts = (id: string, sha256: string, imageData: object = { height: 2, width: 1 }) => ({ id, fileFormat: "image/jpeg", imageData, checksums: { sha256 } });

  beforeEach(() => early.offerEarlyJudge(async (u) => u.assetId));

  it("is taken by a row with the stored digest, format and header facts (keys in any order), once", async () => {
    expect(early.startEarlyJudgement(upload("a"))).toBe(true);
    expect(early.takeEarlyJudgement(facts("a", "d1"))).toBeNull(); // not stored yet
    expect(early.startEarlyJudgement(upload("b"))).toBe(true);
    early.earlyJudgementStored("b", "d1");
    expect(early.takeEarlyJudgement({ ...facts("b", "d1"), fileFormat: "image/png" })).toBeNull();
    expect(early.startEarlyJudgement(upload("c"))).toBe(true);
    early.earlyJudgementStored("c", "d1");
    const taken = early.takeEarlyJudgement(facts("c", "d1"));
    expect(await taken?.work).toBe("c");
    expect(early.takeEarlyJudgement(facts("c", "d1"))).toBeNull();
  });

  it("starts at most four at once, and nothing without a judge", () => {
    for (const id of ["p1", "p2", "p3", "p4"]) expect(early.startEarlyJudgement(upload(id))).toBe(true);
    expect(early.startEarlyJudgement(upload("p5"))).toBe(false);
    early.abandonEarlyJudgement("p1");
    expect(early.startEarlyJudgement(upload("p5"))).toBe(true);
    for (const id of ["p2", "p3", "p4", "p5"]) early.abandonEarlyJudgement(id);
    early.offerEarlyJudge(null);
    expect(early.startEarlyJudgement(upload("p6"))).toBe(false);
  });

  it("holds at most 64 MiB of uploads", () => {
    expect(early.startEarlyJudgement(upload("big", Buffer.alloc(40 * 1024 * 1024)))).toBe(true);
    expect(early.startEarlyJudgement(upload("big2", Buffer.alloc(30 * 1024 * 1024)))).toBe(false);
    early.abandonEarlyJudgement("big");
  });

  it("a judgement nobody takes is forgotten after two minutes; a failed one is not an unhandled rejection", async () => {
    vi.useFakeTimers();
    try {
      early.offerEarlyJudge(() => Promise.reject(new Error("model gone")));
      expect(early.startEarlyJudgement(upload("late"))).toBe(true);
      early.earlyJudgementStored("late", "d1");
      vi.advanceTimersByTime(120_001);
      expect(early.takeEarlyJudgement(facts("late", "d1"))).toBeNull();
      expect(early.startEarlyJudgement(upload("failing"))).toBe(true);
      early.earlyJudgementStored("failing", "d1");
      await expect(early.takeEarlyJudgement(facts("failing", "d1"))?.work).rejects.toThrow("model gone");
    } finally {
      vi.useRealTimers();
    }
  });
});
