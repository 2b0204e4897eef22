import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { makeDocument, makeJpeg, makePdf, makeVideo, makeWav } from "@/tests/support/media-fixtures";
import { makeTextImage } from "@/tests/support/text-image";
import { expectError, newProject, type TestProject, admin, expectOk, waitForDecision } from "./support";

/** The moderation pipeline end to end: real server, embedded Inngest executor, real classifiers. */

const CATEGORIES = ["sexual", "violence", "self-harm", "harassment", "hate", "criminal-activity"];
const THREAT = "I will kill you tomorrow, you worthless idiot.";
const BENIGN = "Thanks for the lovely afternoon at the lake, see you next week!";

let p: TestProject;
let dir: string;

beforeAll(async () => {
  p = await newProject();
  dir = await mkdtemp(path.join(os.tmpdir(), "sieve-pipeline-test-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function createText(text: string, options: { queue?: boolean; processingOptions?: unknown; name?: string } = {}) {
  const query = options.queue === undefined ? "" : `?queue=${options.queue}`;
  return expectOk(
    await p.client.post(`/projects/${p.projectId}/assets${query}`, {
      name: options.name ?? "text.txt",
      content: { type: "text/plain", plainText: text },
      ...(options.processingOptions === undefined ? {} : { processingOptions: options.processingOptions }),
    }),
  );
}

async function createBytes(name: string, type: string, bytes: Buffer, extra: Record<string, unknown> = {}, queue = false) {
  return expectOk(
    await p.client.post(`/projects/${p.projectId}/assets?queue=${queue}`, { name, content: { type, base64: bytes.toString("base64") }, ...extra }),
  );
}

/** Polls until the asset is decided (support.waitForDecision), with room for video. */
const decided = (id: string, timeoutMs = 60_000) => waitForDecision(p.client, id, timeoutMs);

/** Every event of the project so far (from the very first: cursor position 0), for one asset. */
async function eventsOf(assetId: string): Promise<any[]> {
  let after = Buffer.from("v1.0.0", "utf8").toString("base64url");
  const all: any[] = [];
  for (;;) {
    const page = expectOk(await p.client.get(`/projects/${p.projectId}/events?limit=100&after=${after}`));
    all.push(...page.events);
    if (!page.hasMore) break;
    after = page.cursor;
  }
  return all.filter((e: any) => e.assetId === assetId);
}

function facts(event: any): Record<string, unknown> {
  return Object.fromEntries(event.facts.map((f: any) => [f.key, f.value]));
}

describe("text", () => {
  it("queue=false decides within the request: a threat is rejected (project default hide) with the spec's events", async () => {
    const asset = await createText(THREAT);
    expect(asset).toMatchObject({ status: "rejected", moderationAction: "hide" });
    expect(asset.rejectionNote).toMatch(/violence/);
    const report = asset.report;
    expect(Object.keys(report.categories).sort()).toEqual([...CATEGORIES].sort());
    expect(report.flagged).toBe(true);
    expect(report.categories.violence).toMatchObject({ status: "evaluated", likelihood: expect.stringMatching(/likely/) });
    expect(report.categories.violence.qualifiers["violent-threat"].status).toBe("evaluated");
    expect(report.categories.harassment.score).toBeGreaterThan(0.6);
    expect(JSON.stringify(report.notes)).toContain("violence.threat");

    const events = await eventsOf(asset.id);
    expect(events.map((e) => e.type)).toEqual(["asset.uploaded", "asset.classified", "asset.flagged"]);
    expect(facts(events[1])).toEqual({ "asset-name": "text.txt", "asset-type": "plaintext-document", status: "rejected", "moderation-action": "hide" });
    expect(facts(events[2])).toEqual({
      "asset-name": "text.txt",
      "asset-type": "plaintext-document",
      "flagged-categories": ["violence", "harassment"],
      "moderation-action": "hide",
    });
    expect(events[2]).toMatchObject({ severity: "high", notify: true, asset: { status: "rejected", flagged: true, moderationAction: "hide" } });
  });

  it("benign text is approved with no flag; stored content is removed after processing unless kept", async () => {
    const removed = await createText(BENIGN);
    expect(removed).toMatchObject({ status: "approved", moderationAction: null, storageId: null });
    expect(removed.report.flagged).toBe(false);
    expect(removed.storageDeletedAt).toEqual(expect.any(Number));
    const events = await eventsOf(removed.id);
    expect(events.map((e) => e.type)).toEqual(["asset.uploaded", "asset.classified"]);
    expect(facts(events[1])).toMatchObject({ status: "approved", "moderation-action": null });

    const kept = await createText(BENIGN, { processingOptions: { keepContentAfterProcessing: true } });
    expect(kept).toMatchObject({ status: "approved", storageDeletedAt: null });
    expect(kept.storageId).toEqual(expect.any(String));
  });

  it("each policy action: ignore approves silently, alert approves and flags, hide rejects, purge rejects and removes content", async () => {
    const keep = { keepContentAfterProcessing: true };
    const ignore = await createText(THREAT, { processingOptions: { ...keep, flaggedContentPolicy: { action: "ignore" } } });
    expect(ignore).toMatchObject({ status: "approved", moderationAction: "ignore" });
    expect((await eventsOf(ignore.id)).map((e) => e.type)).toEqual(["asset.uploaded", "asset.classified"]);
    expect(facts((await eventsOf(ignore.id))[1])["moderation-action"]).toBeNull();

    const alert = await createText(THREAT, { processingOptions: { ...keep, flaggedContentPolicy: { action: "alert" } } });
    expect(alert).toMatchObject({ status: "approved", moderationAction: "alert", storageDeletedAt: null });
    const alertEvents = await eventsOf(alert.id);
    expect(alertEvents.map((e) => e.type)).toEqual(["asset.uploaded", "asset.classified", "asset.flagged"]);
    expect(alertEvents[2].notify).toBe(true);
    expect(facts(alertEvents[2])["moderation-action"]).toBe("alert");

    const hide = await createText(THREAT, { processingOptions: { ...keep, flaggedContentPolicy: { action: "hide" } } });
    expect(hide).toMatchObject({ status: "rejected", moderationAction: "hide", storageDeletedAt: null });

    const purge = await createText(THREAT, { processingOptions: { ...keep, flaggedContentPolicy: { action: "purge" } } });
    expect(purge).toMatchObject({ status: "rejected", moderationAction: "purge", storageId: null });
    expect(purge.storageDeletedAt).toEqual(expect.any(Number));
    expect(purge.report.flagged).toBe(true);
  });

  it("queue=true returns pending at once; the decision arrives in the background", async () => {
    const asset = await createText(THREAT, { queue: true });
    expect(asset.status).toBe("pending");
    const later = await decided(asset.id);
    expect(later).toMatchObject({ status: "rejected", moderationAction: "hide" });
  });

  it("per-project settings (admin set-moderation): thresholds, default action, keeping content", async () => {
    const strict = await newProject();
    const upload = async () =>
      expectOk(
        await strict.client.post(`/projects/${strict.projectId}/assets?queue=false`, { name: "t", content: { type: "text/plain", plainText: THREAT } }),
      );
    const all = CATEGORIES.map((c) => `${c}=0.99`).join(",");
    const settings = await admin("set-moderation", "--project", strict.projectId, "--thresholds", all);
    expect(settings.thresholds.violence).toBe(0.99);
    const lenient = await upload();
    expect(lenient).toMatchObject({ status: "approved", moderationAction: null, storageId: null });
    expect(lenient.report.flagged).toBe(false);

    await admin("set-moderation", "--project", strict.projectId, "--thresholds", "default", "--default-action", "alert", "--keep-content", "true");
    const alerted = await upload();
    expect(alerted).toMatchObject({ status: "approved", moderationAction: "alert", storageDeletedAt: null });
    expect(alerted.storageId).toEqual(expect.any(String));
  });
});

describe("images", () => {
  it("a photo is judged for sexual content by the image model; categories it cannot judge are not-supported", async () => {
    const asset = await createBytes("photo.jpg", "image/jpeg", await makeJpeg({ width: 320, height: 240, color: { r: 40, g: 120, b: 200 } }));
    expect(asset.status).toBe("approved");
    expect(asset.report.categories.sexual).toMatchObject({ status: "evaluated", likelihood: "very-unlikely" });
    for (const c of CATEGORIES.filter((c) => c !== "sexual")) {
      expect(asset.report.categories[c]).toEqual({ status: "not-evaluated", reason: "not-supported" });
    }
  });

  it("with OCR enabled, the image's text becomes a text child and is classified with the image", async () => {
    const image = await makeTextImage("I will kill you tomorrow", { width: 900, fontSize: 48 });
    const asset = await createBytes("caption.png", "image/png", image, { processingOptions: { image: { ocrEnabled: true } } });
    expect(asset.status).toBe("rejected");
    expect(asset.extractedText?.toLowerCase()).toContain("kill");
    expect(asset.report.categories.violence.status).toBe("evaluated");
    const children = expectOk(await p.client.get(`/assets/${asset.id}/children`));
    expect(children.items).toHaveLength(1);
    expect(children.items[0]).toMatchObject({ parentId: asset.id, type: "plaintext-document", status: "rejected" });
    expect(children.items[0].extractedText.toLowerCase()).toContain("kill");
  });
});

describe("documents, audio and video", () => {
  it("a PDF's text and embedded images become children with their own reports", async () => {
    const jpeg = await makeJpeg({ width: 64, height: 48, color: { r: 10, g: 200, b: 60 } });
    const pdf = makePdf({ pages: [{ text: "Quarterly garden club newsletter" }, { text: "Photos from the spring fair", jpeg }] });
    const created = await createBytes("newsletter.pdf", "application/pdf", pdf, { processingOptions: { keepContentAfterProcessing: true } });
    expect(created.status).toBe("pending");
    const asset = await decided(created.id);
    expect(asset.status).toBe("approved");
    expect(asset.extractedText).toContain("garden club");
    const children = expectOk(await p.client.get(`/assets/${asset.id}/children`)).items;
    expect(children.map((c: any) => c.type).sort()).toEqual(["image", "plaintext-document"]);
    for (const child of children) expect(child.report.categories).toBeDefined();
    expect(asset.report.categories.sexual.status).toBe("evaluated");
    expect(asset.report.categories.violence.status).toBe("evaluated");
  });

  it("a word-processing document (DOCX) gets the same treatment through pandoc", async () => {
    const jpeg = await makeJpeg({ width: 64, height: 48, color: { r: 200, g: 60, b: 10 } });
    const file = await makeDocument(dir, { format: "docx", title: "Club news", text: "I will kill you if you come to the meeting.", jpeg });
    const created = await createBytes("news.docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", await readFile(file));
    const asset = await decided(created.id);
    expect(asset).toMatchObject({ status: "rejected", moderationAction: "hide" });
    const children = expectOk(await p.client.get(`/assets/${asset.id}/children`)).items;
    expect(children.map((c: any) => c.type).sort()).toEqual(["image", "plaintext-document"]);
    expect(children.find((c: any) => c.type === "plaintext-document").status).toBe("rejected");
  });

  it("audio is always pending at upload, then gets a media report with a transcription; with no speech nothing was judged, so it waits for a reviewer", async () => {
    const wav = await readFile(await makeWav(dir, { seconds: 2, frequency: 440 }));
    const created = await createBytes("tone.wav", "audio/wav", wav, {}, false);
    expect(created.status).toBe("pending");
    const asset = await decided(created.id);
    // Fail closed: a tone has no words to classify and no model hears sounds.
    expect(asset).toMatchObject({ status: "rejected", moderationAction: null, rejectionNote: expect.stringMatching(/no category could be judged/) });
    expect(asset.report.notes.unanalysed).toEqual([{ part: "content", categories: [...CATEGORIES], reason: expect.stringMatching(/no category could be judged/) }]);
    expect(asset.report.media).toMatchObject({ sampledFrames: 0, audioTranscribed: true });
    expect(asset.report.media.durationSeconds).toBeCloseTo(2, 0);
  });

  it("video frames are sampled and classified as segments", async () => {
    const mp4 = await readFile(await makeVideo(dir, { seconds: 4, width: 320, height: 240, withAudio: true }));
    const created = await createBytes("clip.mp4", "video/mp4", mp4, {}, false);
    expect(created.status).toBe("pending");
    const asset = await decided(created.id, 120_000);
    expect(asset.status).toBe("approved");
    const media = asset.report.media;
    expect(media.sampledFrames).toBeGreaterThan(0);
    expect(media.frameIntervalSeconds).toBeGreaterThan(0);
    const frames = media.segments.filter((s: any) => s.source === "frame");
    expect(frames).toHaveLength(media.sampledFrames);
    expect(frames[0].categories.sexual.status).toBe("evaluated");
    expect(Object.keys(frames[0].categories).sort()).toEqual([...CATEGORIES].sort());
  });
});

describe("failures and retry", () => {
  it("content that cannot be processed ends in error with asset.failed; retry processes it again; other statuses get 409", async () => {
    const broken = Buffer.from("%PDF-1.4\nthis is not really a pdf\n%%EOF\n", "latin1");
    const created = await createBytes("broken.pdf", "application/pdf", broken, { processingOptions: { keepContentAfterProcessing: true } });
    const failed = await decided(created.id);
    expect(failed.status).toBe("error");
    const failedEvents = (await eventsOf(created.id)).filter((e) => e.type === "asset.failed");
    expect(failedEvents).toHaveLength(1);
    expect(facts(failedEvents[0])).toEqual({ "asset-name": "broken.pdf", "asset-type": "multimedia-document", "previous-status": "pending" });

    const retried = expectOk(await p.client.post(`/assets/${created.id}/retry?queue=true`));
    expect(retried.status).toBe("pending");
    expect((await decided(created.id)).status).toBe("error");
    expect((await eventsOf(created.id)).filter((e) => e.type === "asset.failed")).toHaveLength(2);

    const approved = await createText(BENIGN);
    expectError(await p.client.post(`/assets/${approved.id}/retry`), 409, "asset/not-retryable");
    expectError(await p.client.post(`/assets/00000000-0000-4000-8000-000000000000/retry`), 404, "asset/not-found");
  });
});

describe("batch operations", () => {
  it("queues a move of several assets and reports each asset's outcome", async () => {
    const folder = expectOk(await p.client.post(`/projects/${p.projectId}/folders`, { name: "batch-target" }));
    const a = await createText(BENIGN, { processingOptions: { keepContentAfterProcessing: true } });
    const b = await createText(BENIGN, { processingOptions: { keepContentAfterProcessing: true } });
    const missing = "00000000-0000-4000-8000-000000000001";
    const res = await p.client.post(`/projects/${p.projectId}/assets/batch`, { operation: "move", assetIds: [a.id, b.id, missing], folderId: folder.id });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ operation: "move", status: "queued", counts: { queued: 3, succeeded: 0, failed: 0 } });
    const deadline = Date.now() + 30_000;
    let batch = res.body;
    while (batch.status !== "completed" && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      batch = expectOk(await p.client.get(`/projects/${p.projectId}/assets/batch/${res.body.id}`));
    }
    expect(batch.status).toBe("completed");
    expect(batch.items).toEqual([
      { assetId: a.id, status: "succeeded", code: null, message: null },
      { assetId: b.id, status: "succeeded", code: null, message: null },
      { assetId: missing, status: "failed", code: "asset/not-found", message: expect.any(String) },
    ]);
    expect(expectOk(await p.client.get(`/assets/${a.id}`)).folderId).toBe(folder.id);
  });

  it("validates operation, parameters and size (at most 100 assets, each once)", async () => {
    const url = `/projects/${p.projectId}/assets/batch`;
    const ids = (n: number) => Array.from({ length: n }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`);
    expectError(await p.client.post(url, { operation: "delete", assetIds: ids(101) }), 400, "request/validation-failed");
    expectError(await p.client.post(url, { operation: "delete", assetIds: [] }), 400, "request/validation-failed");
    expectError(await p.client.post(url, { operation: "delete", assetIds: [ids(1)[0], ids(1)[0]] }), 400, "request/validation-failed");
    expectError(await p.client.post(url, { operation: "move", assetIds: ids(1) }), 400, "request/validation-failed");
    expectError(await p.client.post(url, { operation: "explode", assetIds: ids(1) }), 400, "request/validation-failed");
    expectError(await p.client.post(url, { operation: "move", assetIds: ids(1), folderId: ids(1)[0] }), 404, "folder/not-found");
    expectError(await p.client.get(`${url}/${ids(1)[0]}`), 404, "batch/not-found");
    expectError(await p.client.get(`${url}/not-a-batch-id`), 404, "batch/not-found");
  });
});

describe("safety hold from hash lists", () => {
  it("an image matching a hash list (after resizing and re-encoding) is held, and normal operations get 423", async () => {
    const original = await sharp({
      create: { width: 256, height: 192, channels: 3, background: { r: 30, g: 30, b: 30 } },
    })
      .composite([{ input: await makeJpeg({ width: 100, height: 60, color: { r: 240, g: 200, b: 20 } }), left: 20, top: 30 }])
      .jpeg()
      .toBuffer();
    const { createHashList, addHashes } = await import("@/lib/moderation/hashing/lists");
    const { imageHashPair } = await import("@/lib/moderation/hashing/phash");
    const list = `known-${Date.now()}`;
    await createHashList({ name: list });
    // Hash lists are global: remove it afterwards so later uploads on the shared server are not held.
    onTestFinished(async () => {
      const { db } = await import("@/lib/db/client");
      await db().hashList.delete({ where: { name: list } });
    });
    await addHashes(list, await imageHashPair(original), { label: "test entry" });

    const copy = await sharp(original).resize(200).webp({ quality: 70 }).toBuffer();
    const asset = await createBytes("copy.webp", "image/webp", copy, { processingOptions: { keepContentAfterProcessing: false } });
    expect(asset.safetyHold).toMatchObject({ source: "hash-list", list });
    expect(asset.storageId).not.toBeNull(); // held content is evidence: never removed automatically
    expectError(await p.client.patch(`/assets/${asset.id}`, { name: "renamed" }), 423, "asset/safety-held");
    expectError(await p.client.delete(`/assets/${asset.id}`), 423, "asset/safety-held");
  });
});
