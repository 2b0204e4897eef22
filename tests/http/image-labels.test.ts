import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeVideo } from "@/tests/support/media-fixtures";
import { upload } from "./cdn-support";
import { expectOk, newProject, type TestProject } from "./support";

/**
 * Labels after the decision (objects, colours, faces: `imageLabels`) and natural-language search
 * over them, on real photos (tests/fixtures/vision/SOURCES.md).
 */
const VISION = path.join(process.cwd(), "tests/fixtures/vision");
const DATA_DIR = process.env.DATA_DIR!;

type Labels = { objects: { label: string; confidence: number; count: number }[]; colours: { name: string; fraction: number }[]; faces: number; model: string; labeledAt: number };
type SearchPage = { items: { asset: Record<string, any>; rank: number }[]; total: number; hasMore: boolean };

async function labelled(p: TestProject, id: string, ms = 90_000): Promise<Record<string, any> & { imageLabels: Labels }> {
  const deadline = Date.now() + ms;
  for (;;) {
    const asset = expectOk<Record<string, any>>(await p.client.get(`/assets/${id}`));
    if (asset.imageLabels) return asset as Record<string, any> & { imageLabels: Labels };
    if (Date.now() > deadline) throw new Error(`asset ${id} not labelled within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function labelSourcesLeft(projectId: string, assetId: string): Promise<string[]> {
  return readdir(path.join(DATA_DIR, "storage", "projects", projectId, "label-sources", assetId)).catch(() => []);
}

async function searchNames(p: TestProject, q: string, extra: Record<string, string> = {}): Promise<string[]> {
  const qs = new URLSearchParams({ q, ...extra });
  return expectOk<SearchPage>(await p.client.get(`/projects/${p.projectId}/assets/search?${qs}`)).items.map((i) => i.asset.name as string);
}

describe("image labels and natural-language search", () => {
  let p: TestProject;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    p = await newProject();
    // Neutral names: what is found must come from the pixels.
    ids.cat = (await upload(p, await readFile(path.join(VISION, "cat.jpg")), "image/jpeg", { name: "a.jpg", keepContentAfterProcessing: "false" })).id;
    ids.people = (await upload(p, await readFile(path.join(VISION, "two-people.jpg")), "image/jpeg", { name: "b.jpg" })).id;
    const red = await sharp({ create: { width: 300, height: 200, channels: 3, background: { r: 220, g: 20, b: 30 } } }).png().toBuffer();
    ids.red = (await upload(p, red, "image/png", { name: "c.png" })).id;
  }, 60_000);

  it("labels an image after its decision, even when its content is not kept, and deletes the copy it read", async () => {
    const cat = await labelled(p, ids.cat!);
    expect(cat.status).toBe("approved");
    expect(cat.storageDeletedAt).not.toBeNull();
    expect(cat.imageLabels.objects.map((o) => o.label)).toContain("cat");
    expect(cat.imageLabels.model).toMatch(/centernet/);
    expect(await labelSourcesLeft(p.projectId, ids.cat!)).toEqual([]);

    const people = await labelled(p, ids.people!);
    expect(people.imageLabels.objects.find((o) => o.label === "person")?.count).toBeGreaterThanOrEqual(2);
    expect(people.imageLabels.faces).toBeGreaterThanOrEqual(1);

    const red = await labelled(p, ids.red!);
    expect(red.imageLabels.objects).toEqual([]);
    expect(red.imageLabels.colours[0]).toMatchObject({ name: "red" });
    expect(red.imageLabels.faces).toBe(0);
  }, 120_000);

  it("finds images by what they show, through synonyms, plurals, numbers and colours", async () => {
    await Promise.all(Object.values(ids).map((id) => labelled(p, id)));
    expect((await searchNames(p, "cat"))[0]).toBe("a.jpg");
    expect((await searchNames(p, "a kitten on a sofa"))[0]).toBe("a.jpg");
    expect((await searchNames(p, "two people"))[0]).toBe("b.jpg");
    expect((await searchNames(p, "woman"))[0]).toBe("b.jpg");
    expect((await searchNames(p, "portrait"))[0]).toBe("b.jpg");
    expect((await searchNames(p, "something red"))[0]).toBe("c.png");
    expect(await searchNames(p, "giraffe")).toEqual([]);
    // Keywords mode is text only: the labels are not words of the asset's text.
    expect(await searchNames(p, "cat", { mode: "keywords" })).toEqual([]);
  }, 120_000);

  it("ranks the asset matching more of the description first, and filters by type, status and folder", async () => {
    const page = expectOk<SearchPage>(await p.client.get(`/projects/${p.projectId}/assets/search?q=${encodeURIComponent("red cat")}`));
    const names = page.items.map((i) => i.asset.name);
    // The thing first (a colour only qualifies it), then the red picture.
    expect(names[0]).toBe("a.jpg");
    expect(names).toContain("c.png");
    for (const item of page.items) {
      expect(item.rank).toBeGreaterThan(0);
      expect(item.rank).toBeLessThanOrEqual(1);
    }
    expect(await searchNames(p, "cat", { type: "video" })).toEqual([]);
    expect(await searchNames(p, "cat", { status: "rejected" })).toEqual([]);
    expect(await searchNames(p, "cat", { status: "approved" })).toEqual(["a.jpg"]);
    const folder = expectOk<Record<string, any>>(await p.client.post(`/projects/${p.projectId}/folders`, { name: "cats" }));
    expect(await searchNames(p, "cat", { folderId: folder.id })).toEqual([]);
    expectOk(await p.client.post(`/assets/${ids.cat}/move`, { folderId: folder.id }));
    expect(await searchNames(p, "cat", { folderId: folder.id })).toEqual(["a.jpg"]);
    const bad = await p.client.get(`/projects/${p.projectId}/assets/search?q=cat&folderId=nope`);
    expect(bad.status).toBe(400);
    const badMode = await p.client.get(`/projects/${p.projectId}/assets/search?q=cat&mode=fuzzy`);
    expect(badMode.status).toBe(400);
  }, 60_000);

  describe("video", () => {
    let dir: string;
    beforeAll(async () => {
      dir = await mkdtemp(path.join(os.tmpdir(), "labels-video-"));
    });
    afterAll(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    it("labels each sampled frame in the report's frame segments and sums them up on the asset", async () => {
      const mp4 = await readFile(await makeVideo(dir, { seconds: 4, width: 320, height: 240, withAudio: false }));
      const created = expectOk<Record<string, any>>(
        await p.client.request("POST", `/projects/${p.projectId}/assets/upload?name=clip.mp4&queue=true`, {
          body: mp4,
          headers: { "X-Service-Upload": "content", "Content-Type": "video/mp4" },
        }),
      );
      const video = await labelled(p, created.id as string, 120_000);
      const frames = (video.report.media.segments as { source: string; labels?: Labels }[]).filter((s) => s.source === "frame");
      expect(frames.length).toBeGreaterThan(0);
      for (const frame of frames) {
        expect(frame.labels).toBeDefined();
        expect(frame.labels!.colours.length).toBeGreaterThan(0);
      }
      // testsrc2 is a colourful test pattern: its colours are the frames' colours.
      expect(video.imageLabels.colours.length).toBeGreaterThan(0);
      expect(await labelSourcesLeft(p.projectId, created.id as string)).toEqual([]);
    }, 150_000);
  });
});
