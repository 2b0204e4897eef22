import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { makeVideo } from "@/tests/support/media-fixtures";
import { cdn, contentPath, gradientJpeg, upload } from "./cdn-support";
import { THREAT, createText } from "./events-support";
import { portal, portalUser, sessionCookie, type PortalUser } from "./portal-support";
import { expectError, expectOk, newProject, waitForDecision, type TestProject } from "./support";

/**
 * Media for people: the CDN accepts a project member's portal session for private assets (spec,
 * CDN access: "an owner's portal session"), and the portal's review media route shows reviewers
 * what the CDN will not deliver (rejected assets), never what is under a safety hold.
 */
let p: TestProject;
let member: PortalUser;
let viewer: PortalUser;
let outsider: PortalUser;
let jpeg: Buffer;

beforeAll(async () => {
  p = await newProject();
  [member, viewer, outsider] = await Promise.all([portalUser(p, "member"), portalUser(p, "viewer"), portalUser(null, null)]);
  jpeg = await gradientJpeg(64, 48);
});

describe("the CDN with a portal session", () => {
  it("serves a private approved asset to members (viewers too), privately cached; 404 to anyone else", async () => {
    const asset = await upload(p, jpeg, "image/jpeg", { visibility: "private" });
    expect(asset.status).toBe("approved");
    const path = contentPath(asset);
    for (const who of [member, viewer]) {
      const res = await cdn(path, { headers: { Cookie: who.cookie } });
      expect(res.status).toBe(200);
      expect(res.bytes.equals(jpeg)).toBe(true);
      expect(res.headers.get("cache-control")).toMatch(/^private/);
    }
    for (const cookie of [outsider.cookie, "sieve.session-token=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", null]) {
      const res = await cdn(path, { headers: cookie ? { Cookie: cookie } : {} });
      expectError(res, 404, "asset/not-found");
    }
  });

  it("still applies the serving rules: a rejected private asset is not delivered, even to a member", async () => {
    const asset = await createText(p, THREAT, "threat.txt", { processingOptions: { keepContentAfterProcessing: true } });
    expect(asset.status).toBe("rejected");
    expectError(await cdn(contentPath(asset), { headers: { Cookie: member.cookie } }), 404, "asset/not-found");
  });

  it("stops honouring a session once it is ended", async () => {
    const asset = await upload(p, jpeg, "image/jpeg", { visibility: "private" });
    const cookie = await sessionCookie(member.userId);
    expect((await cdn(contentPath(asset), { headers: { Cookie: cookie } })).status).toBe(200);
    const { endSession } = await import("@/lib/auth/sessions");
    await endSession(cookie.split("=")[1]!);
    expect((await cdn(contentPath(asset), { headers: { Cookie: cookie } })).status).toBe(404);
  });
});

describe("media URLs on the asset page", () => {
  it("point at the CDN for what it delivers, and at review media for the rest; both open with the session", async () => {
    const approved = await upload(p, jpeg, "image/jpeg", { visibility: "private" });
    const shown = expectOk(await portal(member.cookie, "GET", `/projects/${p.projectId}/assets/${approved.id}`)).item;
    expect(shown.contentUrl).toBe(`/cdn/v1${contentPath(approved)}`);
    expect(shown.previewUrl).toBe(`/cdn/v1/assets/${p.projectId}/${approved.id}/preview`);
    expect((await cdn(shown.contentUrl.slice("/cdn/v1".length), { headers: { Cookie: member.cookie } })).bytes.equals(jpeg)).toBe(true);

    const rejected = await createText(p, THREAT, "shown.txt", { processingOptions: { keepContentAfterProcessing: true } });
    const item = expectOk(await portal(member.cookie, "GET", `/projects/${p.projectId}/assets/${rejected.id}`)).item;
    expect(item.contentUrl).toBe(`/api/portal/projects/${p.projectId}/assets/${rejected.id}/media/content`);
    expect(item.previewUrl).toBeNull();
  });
});

describe("review media", () => {
  it("shows a reviewer the content of a rejected asset, never cached", async () => {
    const asset = await createText(p, THREAT, "look-at-me.txt", { processingOptions: { keepContentAfterProcessing: true } });
    const res = await portal(member.cookie, "GET", `/projects/${p.projectId}/assets/${asset.id}/media/content`);
    expect(res.status).toBe(200);
    expect(res.text).toBe(THREAT);
    expect(res.headers.get("cache-control")).toBe("private, no-store");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("serves an image's preview, and says so when there is none", async () => {
    const image = await upload(p, jpeg, "image/jpeg", { visibility: "private" });
    const preview = await portal(viewer.cookie, "GET", `/projects/${p.projectId}/assets/${image.id}/media/preview`);
    expect(preview.status).toBe(200);
    expect(preview.headers.get("content-type")).toBe("image/webp");
    const text = await createText(p, THREAT, "no-preview.txt", { processingOptions: { keepContentAfterProcessing: true } });
    expectError(await portal(member.cookie, "GET", `/projects/${p.projectId}/assets/${text.id}/media/preview`), 404, "asset/no-preview");
  });

  it("refuses outsiders, other projects' assets, content not kept, and anything under a safety hold", async () => {
    const asset = await createText(p, THREAT, "held.txt", { processingOptions: { keepContentAfterProcessing: true } });
    const mediaPath = `/projects/${p.projectId}/assets/${asset.id}/media/content`;
    expectError(await portal(outsider.cookie, "GET", mediaPath), 404, "project/not-found");
    const other = await newProject();
    const foreign = await createText(other, THREAT, "foreign.txt", { processingOptions: { keepContentAfterProcessing: true } });
    expectError(await portal(member.cookie, "GET", `/projects/${p.projectId}/assets/${foreign.id}/media/content`), 404, "asset/not-found");
    const notKept = await createText(p, THREAT, "not-kept.txt");
    expectError(await portal(member.cookie, "GET", `/projects/${p.projectId}/assets/${notKept.id}/media/content`), 404, "asset/not-found");
    const { placeSafetyHold } = await import("@/lib/assets/safety-hold");
    await placeSafetyHold(asset.id, { reason: "legal", source: "admin-cli" });
    expectError(await portal(member.cookie, "GET", mediaPath), 423, "asset/safety-held");
    expectError(await portal(member.cookie, "GET", `/projects/${p.projectId}/assets/${asset.id}/media/other`), 400, "request/validation-failed");
  });
});

describe("video frames for the timeline", () => {
  it("keeps each sampled frame of a retained video, in the order of the report's frame segments", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "sieve-portal-frames-"));
    try {
      const mp4 = await readFile(await makeVideo(dir, { seconds: 4, width: 320, height: 240, withAudio: false }));
      const created = expectOk(
        await p.client.post(`/projects/${p.projectId}/assets?queue=true`, {
          name: "clip.mp4",
          content: { type: "video/mp4", base64: mp4.toString("base64") },
          processingOptions: { keepContentAfterProcessing: true },
        }),
      );
      const asset = await waitForDecision(p.client, created.id, 120_000);
      const sampled = asset.report.media.sampledFrames as number;
      expect(sampled).toBeGreaterThan(0);
      const detail = expectOk(await portal(member.cookie, "GET", `/projects/${p.projectId}/assets/${asset.id}`));
      expect(detail.frameUrls).toHaveLength(sampled);
      const frame = await portal(member.cookie, "GET", detail.frameUrls[0].replace("/api/portal", ""));
      expect(frame.status).toBe(200);
      expect(frame.headers.get("content-type")).toBe("image/jpeg");
      expect(frame.headers.get("cache-control")).toBe("private, no-store");
      expect(frame.bytes.subarray(0, 3).toString("hex")).toBe("ffd8ff");
      const framePath = (i: number | string) => `/projects/${p.projectId}/assets/${asset.id}/frames/${i}`;
      expectError(await portal(member.cookie, "GET", framePath(sampled)), 404, "asset/not-found");
      expectError(await portal(member.cookie, "GET", framePath("first")), 400, "request/validation-failed");
      expectError(await portal(outsider.cookie, "GET", framePath(0)), 404, "project/not-found");
      // Removing the content removes the frames with it.
      expectOk(await p.client.delete(`/assets/${asset.id}/content`));
      expect(expectOk(await portal(member.cookie, "GET", `/projects/${p.projectId}/assets/${asset.id}`)).frameUrls).toEqual([]);
      expectError(await portal(member.cookie, "GET", framePath(0)), 404, "asset/not-found");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 150_000);
});
