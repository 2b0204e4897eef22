import { randomBytes } from "node:crypto";
import sharp from "sharp";
import { beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { blackBitmapPng, forgedHeaderPng } from "@/tests/support/png-fixtures";
import { admin, expectOk, newProject, type TestProject, waitForDecision } from "./support";

/**
 * Moderation fails closed (issue: "nothing unjudged is approved"): each reproduction of the issue,
 * against the real server and classifiers. An asset is approved only when what applies to its
 * content was judged; otherwise the project's unanalysable action applies (default reject).
 */
const THREAT = "I will hurt you";

let p: TestProject;
beforeAll(async () => {
  p = await newProject();
});

async function createBytes(project: TestProject, name: string, type: string, bytes: Buffer, extra: Record<string, unknown> = {}) {
  const asset = expectOk(
    await project.client.post(`/projects/${project.projectId}/assets?queue=false`, { name, content: { type, base64: bytes.toString("base64") }, ...extra }),
  );
  return asset.status === "pending" ? waitForDecision(project.client, asset.id, 60_000) : asset;
}

async function uploadRaw(project: TestProject, bytes: Buffer, contentType: string) {
  const res = await project.client.request("POST", `/projects/${project.projectId}/assets/upload?queue=false&name=raw.txt`, {
    body: bytes,
    headers: { "X-Service-Upload": "content", "Content-Type": contentType },
  });
  const asset = expectOk(res);
  return asset.status === "pending" ? waitForDecision(project.client, asset.id, 60_000) : asset;
}

/** Every event of the project for one asset, from the start of the feed. */
async function eventTypesOf(project: TestProject, assetId: string): Promise<{ type: string; description: string | null }[]> {
  const start = Buffer.from("v1.0.0", "utf8").toString("base64url");
  const page = expectOk(await project.client.get(`/projects/${project.projectId}/events?limit=100&after=${start}`));
  return page.events.filter((e: any) => e.assetId === assetId);
}

/** Not approved, waiting for a reviewer: rejected without a policy action, content kept, the gap named. */
function expectRejectedForReview(asset: Record<string, any>, part: RegExp) {
  expect(asset.status).toBe("rejected");
  expect(asset.moderationAction).toBeNull();
  expect(asset.rejectionNote).toMatch(/^Not fully analysed/);
  expect(asset.rejectionNote).toMatch(part);
  expect(asset.storageId).not.toBeNull();
  expect(JSON.stringify(asset.report.notes.unanalysed)).toMatch(part);
}

describe("images the decoder used to refuse are judged", () => {
  it("a 20000×20000 PNG (1.2 MB) is judged on a downscaled copy", async () => {
    const png = await sharp({ create: { width: 20_000, height: 20_000, channels: 3, background: { r: 200, g: 30, b: 30 } }, limitInputPixels: false })
      .png({ compressionLevel: 9 })
      .toBuffer();
    const asset = await createBytes(p, "solid.png", "image/png", png);
    expect(asset.status).toBe("approved");
    expect(asset.report.categories.sexual.status).toBe("evaluated");
    expect(asset.report.notes.image).toEqual({ judgedAt: "downscaled", original: { width: 20_000, height: 20_000 } });
    expect(asset.report.notes.unanalysed).toBeUndefined();
  });

  it("a 1-bit 60000×60000 PNG (437 KB) is judged on a downscaled copy", async () => {
    const png = await blackBitmapPng(60_000, 60_000);
    const asset = await createBytes(p, "bitmap.png", "image/png", png);
    expect(asset.status).toBe("approved");
    expect(asset.report.categories.sexual.status).toBe("evaluated");
    expect(asset.report.notes.image.original).toEqual({ width: 60_000, height: 60_000 });
  });

  it("a hash-listed picture uploaded at 10240×10240 is held like the same picture at 512²", async () => {
    const small = await sharp({ create: { width: 512, height: 512, channels: 3, background: { r: 20, g: 40, b: 90 } } })
      .composite([{ input: await sharp({ create: { width: 200, height: 120, channels: 3, background: { r: 250, g: 220, b: 10 } } }).png().toBuffer(), left: 60, top: 300 }])
      .png()
      .toBuffer();
    const { createHashList, addHashes } = await import("@/lib/moderation/hashing/lists");
    const { imageHashPair } = await import("@/lib/moderation/hashing/phash");
    const list = `fail-closed-${Date.now()}`;
    await createHashList({ name: list });
    // Hash lists are global: remove it afterwards so later uploads on the shared server are not held.
    onTestFinished(async () => {
      const { db } = await import("@/lib/db/client");
      await db().hashList.delete({ where: { name: list } });
    });
    await addHashes(list, await imageHashPair(small), { label: "large copy test" });

    const large = await sharp(small, { limitInputPixels: false }).resize(10_240, 10_240).jpeg({ quality: 70 }).toBuffer();
    const asset = await createBytes(p, "large.jpg", "image/jpeg", large, { processingOptions: { keepContentAfterProcessing: false } });
    expect(asset.safetyHold).toMatchObject({ source: "hash-list", list });
    expect(asset.storageId).not.toBeNull();
  });
});

describe("what cannot be judged is not approved", () => {
  it("a 69-byte PNG with a forged header is rejected for review, with the reason in the report", async () => {
    const png = forgedHeaderPng();
    expect(png.length).toBe(69);
    const asset = await createBytes(p, "forged.png", "image/png", png, { processingOptions: { keepContentAfterProcessing: false } });
    expectRejectedForReview(asset, /image/);
    expect(asset.report.categories.sexual).toEqual({ status: "not-evaluated", reason: "unavailable" });
    expect((await eventTypesOf(p, asset.id)).map((e) => e.type)).toEqual(["asset.uploaded", "asset.classified"]);
  });

  it("an unknown binary is rejected for review", async () => {
    const asset = await createBytes(p, "blob.bin", "application/octet-stream", randomBytes(2048));
    expect(asset.type).toBe("file");
    expectRejectedForReview(asset, /content/);
  });

  it("an SVG with a DOCTYPE entity is judged or rejected, never approved unjudged", async () => {
    const svg = Buffer.from(
      `<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY x "hello">]><svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><text y="20">&x;</text></svg>`,
    );
    const asset = await createBytes(p, "entity.svg", "image/svg+xml", svg);
    if (asset.status === "approved") expect(asset.report.categories.sexual.status).toBe("evaluated");
    else expectRejectedForReview(asset, /image/);
  });

  it("the project's unanalysable action: error makes it retryable with asset.failed; approve is an explicit opt-out", async () => {
    const strict = await newProject();
    const settings = await admin("set-moderation", "--project", strict.projectId, "--unanalysable", "error");
    expect(settings.unanalysable).toBe("error");
    const failed = await createBytes(strict, "forged.png", "image/png", forgedHeaderPng());
    expect(failed).toMatchObject({ status: "error", moderationAction: null, rejectionNote: null });
    expect(failed.storageId).not.toBeNull();
    const events = await eventTypesOf(strict, failed.id);
    expect(events.map((e) => e.type)).toEqual(["asset.uploaded", "asset.failed"]);
    expect(events[1]!.description).toMatch(/Not fully analysed: image/);
    expect(expectOk(await strict.client.post(`/assets/${failed.id}/retry?queue=true`, {})).status).toBe("pending");

    await admin("set-moderation", "--project", strict.projectId, "--unanalysable", "approve");
    const approved = await createBytes(strict, "forged.png", "image/png", forgedHeaderPng());
    expect(approved.status).toBe("approved");
    expect(approved.report.notes.unanalysed.length).toBeGreaterThan(0);
  });
});

describe("text is judged by its bytes, not its envelope", () => {
  it(`"${THREAT}" with a NUL appended is rejected`, async () => {
    const asset = expectOk(
      await p.client.post(`/projects/${p.projectId}/assets?queue=false`, { name: "nul.txt", content: { plainText: `${THREAT}\u0000`, type: "text/plain" } }),
    );
    const decided = asset.status === "pending" ? await waitForDecision(p.client, asset.id) : asset;
    expect(decided).toMatchObject({ status: "rejected", moderationAction: "hide" });
    expect(decided.report.categories.violence.score).toBeGreaterThan(0.6);
  });

  it(`"${THREAT}" declared as application/x-foo is rejected`, async () => {
    const asset = expectOk(
      await p.client.post(`/projects/${p.projectId}/assets?queue=false`, { name: "foo", content: { plainText: THREAT, type: "application/x-foo" } }),
    );
    const decided = asset.status === "pending" ? await waitForDecision(p.client, asset.id) : asset;
    expect(decided).toMatchObject({ status: "rejected", moderationAction: "hide" });
    expect(decided.report.notes.text.judgedAsText).toMatch(/application\/x-foo/);
  });

  it(`an SVG that draws "${THREAT}" is rejected: its text is judged besides the rendered image`, async () => {
    const svg = Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="200" height="40"><text x="0" y="20">${THREAT}</text></svg>`);
    const asset = await createBytes(p, "drawn.svg", "image/svg+xml", svg);
    expect(asset).toMatchObject({ type: "image", status: "rejected", moderationAction: "hide" });
    expect(asset.report.categories.violence.score).toBeGreaterThan(0.6);
  });

  it(`"${THREAT}" uploaded as UTF-16 (with and without a BOM) is rejected`, async () => {
    const withBom = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(THREAT, "utf16le")]);
    const bom = await uploadRaw(p, withBom, "text/plain; charset=utf-16");
    expect(bom).toMatchObject({ status: "rejected", moderationAction: "hide" });
    expect(bom.report.notes.text.encoding).toBe("utf-16le");
    const bare = await uploadRaw(p, Buffer.from(THREAT, "utf16le"), "text/plain; charset=utf-16le");
    expect(bare).toMatchObject({ status: "rejected", moderationAction: "hide" });
  });
});
