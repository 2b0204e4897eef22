import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { placeSafetyHold, releaseSafetyHold } from "@/lib/assets/safety-hold";
import { cdn, contentPath, eventually, gradientJpeg, upload } from "./cdn-support";
import { BENIGN, THREAT, allEvents, createText, factsOf } from "./events-support";
import { expectReplayOf } from "./platform-support";
import { expectError, expectOk, newKey, newProject, waitForDecision, type TestProject } from "./support";

/** Review decisions: POST /assets/{assetId}/review (approve / reject), their events and the CDN. */

let p: TestProject;

beforeAll(async () => {
  p = await newProject();
});

const review = (assetId: string, body: unknown, headers?: Record<string, string>, client = p.client) =>
  client.post(`/assets/${assetId}/review`, body, headers);

/** The review events of one asset, once at least `count` are visible. */
async function reviewEventsOf(q: TestProject, assetId: string, count: number) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const mine = (await allEvents(q, 0, "type=asset.approved,asset.rejected")).filter((e) => e.assetId === assetId);
    if (mine.length >= count || Date.now() > deadline) return mine;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("review decisions", () => {
  it("approves a rejected asset and rejects it again, with the spec's facts and the Asset as GET shows it", async () => {
    const asset = await createText(p, THREAT, "threat.txt", { processingOptions: { keepContentAfterProcessing: true } });
    expect(asset).toMatchObject({ status: "rejected", moderationAction: "hide", rejectionNote: expect.stringMatching(/violence/) });

    const approved = expectOk(await review(asset.id, { decision: "approve", note: "  satire, fine  " }));
    expect(approved).toMatchObject({ id: asset.id, status: "approved", rejectionNote: null, moderationAction: "hide" });
    expect(approved.report).toEqual(asset.report);
    expect(approved).toEqual(expectOk(await p.client.get(`/assets/${asset.id}`)));

    const rejected = expectOk(await review(asset.id, { decision: "reject", note: "Policy 4.2" }));
    expect(rejected).toMatchObject({ status: "rejected", rejectionNote: "Policy 4.2" });
    const plain = expectOk(await review(asset.id, { decision: "reject" }));
    expect(plain).toMatchObject({ status: "rejected", rejectionNote: "Rejected by a reviewer" });

    const events = await reviewEventsOf(p, asset.id, 3);
    expect(events.map((e) => e.type)).toEqual(["asset.approved", "asset.rejected", "asset.rejected"]);
    // The project's first key is named "default": that is the reviewer's name.
    expect(factsOf(events[0])).toEqual([
      ["asset-name", "threat.txt"],
      ["asset-type", "plaintext-document"],
      ["reviewer-user-id", null],
      ["reviewer-name", "default"],
      ["note", "satire, fine"],
    ]);
    expect(events[0]).toMatchObject({
      projectId: p.projectId,
      userId: null,
      severity: "low",
      notify: false,
      asset: { id: asset.id, externalId: null, status: "approved", flagged: true, moderationAction: "hide" },
    });
    expect(factsOf(events[1])).toEqual([
      ["asset-name", "threat.txt"],
      ["asset-type", "plaintext-document"],
      ["reviewer-user-id", null],
      ["reviewer-name", "default"],
      ["note", "Policy 4.2"],
    ]);
    expect(events[1]).toMatchObject({ severity: "high", notify: true, asset: { status: "rejected" } });
    expect(factsOf(events[2]).at(-1)).toEqual(["note", null]);
  });

  it("a key without a name is named by its prefix", async () => {
    const reviewer = await newKey(p.projectId, ["assets:review"]);
    const asset = await createText(p, BENIGN, "fine.txt");
    expect(asset.status).toBe("approved");
    expectOk(await review(asset.id, { decision: "reject", note: null }, undefined, reviewer.client));
    const [event] = await reviewEventsOf(p, asset.id, 1);
    expect(factsOf(event)).toEqual([
      ["asset-name", "fine.txt"],
      ["asset-type", "plaintext-document"],
      ["reviewer-user-id", null],
      ["reviewer-name", reviewer.apiKey.slice(0, "sieve_".length + 6)],
      ["note", null],
    ]);
  });

  it("refuses transitions the spec does not allow with 409 asset/invalid-transition", async () => {
    const approved = await createText(p, BENIGN);
    expectError(await review(approved.id, { decision: "approve" }), 409, "asset/invalid-transition");

    const uploading = expectOk(await p.client.post(`/projects/${p.projectId}/assets`, { name: "mp.txt", part: { plainText: "hello", type: "text/plain", partNumber: 1 } }));
    expect(uploading.status).toBe("uploading");
    expectError(await review(uploading.id, { decision: "approve" }), 409, "asset/invalid-transition");
    expectError(await review(uploading.id, { decision: "reject" }), 409, "asset/invalid-transition");

    const broken = Buffer.from("%PDF-1.4\nthis is not really a pdf\n%%EOF\n", "latin1");
    const created = expectOk(await p.client.post(`/projects/${p.projectId}/assets?queue=true`, {
      name: "broken.pdf",
      content: { type: "application/pdf", base64: broken.toString("base64") },
      processingOptions: { keepContentAfterProcessing: true },
    }));
    expect((await waitForDecision(p.client, created.id, 60_000)).status).toBe("error");
    expectError(await review(created.id, { decision: "approve" }), 409, "asset/invalid-transition");
    expect(expectOk(await review(created.id, { decision: "reject" })).status).toBe("rejected");
    // Nothing was recorded for the refusals.
    expect(await reviewEventsOf(p, approved.id, 0)).toEqual([]);
    expect(await reviewEventsOf(p, uploading.id, 0)).toEqual([]);
  });

  it("answers 423 for a safety-held asset, 404 and 403 as for other asset operations, and validates the body", async () => {
    const asset = await createText(p, THREAT, "held.txt", { processingOptions: { keepContentAfterProcessing: true } });
    await placeSafetyHold(asset.id, { reason: "test", source: "admin-cli" });
    expectError(await review(asset.id, { decision: "approve" }), 423, "asset/safety-held");
    expectError(await review(asset.id, { decision: "reject" }), 423, "asset/safety-held");
    await releaseSafetyHold(asset.id);
    expect(expectOk(await review(asset.id, { decision: "approve" })).status).toBe("approved");

    expectError(await review(randomUUID(), { decision: "approve" }), 404, "asset/not-found");
    expectError(await review("nope", { decision: "approve" }), 404, "asset/not-found");
    const other = await newProject();
    expectError(await review(asset.id, { decision: "reject" }, undefined, other.client), 403, "auth/project-mismatch");
    const writer = await newKey(p.projectId, ["assets:write", "assets:read"]);
    expectError(await review(asset.id, { decision: "reject" }, undefined, writer.client), 403, "auth/insufficient-permissions");

    for (const body of [{}, { decision: "maybe" }, { decision: "reject", note: "x".repeat(2001) }, { decision: "reject", extra: true }, { decision: "reject", note: 5 }]) {
      expectError(await review(asset.id, body), 400, "request/validation-failed");
    }
    expect(expectOk(await review(asset.id, { decision: "reject", note: "x".repeat(2000) })).rejectionNote).toHaveLength(2000);
  });

  it("replays a decision sent again with the same Idempotency-Key, recording one event", async () => {
    const asset = await createText(p, BENIGN, "idem.txt");
    const key = { "Idempotency-Key": randomUUID() };
    const first = await review(asset.id, { decision: "reject", note: "once" }, key);
    expect(expectOk(first).status).toBe("rejected");
    const replay = await review(asset.id, { decision: "reject", note: "once" }, key);
    expectReplayOf(replay, first);
    expectError(await review(asset.id, { decision: "approve" }, key), 422, "idempotency/key-reused");
    // A retried approve gets its first answer, where a new approve of an approved asset is refused.
    const approveKey = { "Idempotency-Key": randomUUID() };
    const approved = await review(asset.id, { decision: "approve" }, approveKey);
    expect(expectOk(approved).status).toBe("approved");
    expectReplayOf(await review(asset.id, { decision: "approve" }, approveKey), approved);
    expectError(await review(asset.id, { decision: "approve" }), 409, "asset/invalid-transition");
    const events = await reviewEventsOf(p, asset.id, 2);
    expect(events.map((e) => e.type)).toEqual(["asset.rejected", "asset.approved"]);
  });

  it("the CDN stops serving a public approved asset once it is rejected, and serves it again when approved", async () => {
    const asset = await upload(p, await gradientJpeg(64, 48), "image/jpeg");
    expect(asset).toMatchObject({ status: "approved", visibility: "public" });
    expect((await cdn(contentPath(asset))).status).toBe(200);

    expect(expectOk(await review(asset.id, { decision: "reject", note: "not for the site" })).status).toBe("rejected");
    await eventually(async () => expectError(await cdn(contentPath(asset)), 403, "asset/not-available"));

    expect(expectOk(await review(asset.id, { decision: "approve" })).status).toBe("approved");
    await eventually(async () => expect((await cdn(contentPath(asset))).status).toBe(200));
  });

  it("decides in bulk through the batch API, with assets:review besides assets:write, the key as the reviewer", async () => {
    const writer = await newKey(p.projectId, ["assets:write", "assets:read"]);
    const a = await createText(p, THREAT, "batch-a.txt");
    const b = await createText(p, BENIGN, "batch-b.txt");
    const body = { operation: "review", decision: "approve", note: "batch ok", assetIds: [a.id, b.id] };
    expectError(await writer.client.post(`/projects/${p.projectId}/assets/batch`, body), 403, "auth/insufficient-permissions");
    const started = await p.client.post(`/projects/${p.projectId}/assets/batch`, body);
    expect(started.status).toBe(202);
    let batch = started.body;
    const deadline = Date.now() + 15_000;
    while (batch.status !== "completed" && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      batch = expectOk(await p.client.get(`/projects/${p.projectId}/assets/batch/${batch.id}`));
    }
    expect(batch.items).toEqual([
      { assetId: a.id, status: "succeeded", code: null, message: null },
      { assetId: b.id, status: "failed", code: "asset/invalid-transition", message: expect.stringMatching(/approved/) },
    ]);
    const [event] = await reviewEventsOf(p, a.id, 1);
    expect(factsOf(event)).toEqual(expect.arrayContaining([["reviewer-user-id", null], ["note", "batch ok"]]));
  });
});
