import { describe, expect, it } from "vitest";
import { normaliseNote, reviewEvent, reviewTransition } from "@/lib/assets/review";
import type { Asset as AssetRow } from "@/lib/db/generated/client";

describe("review transitions", () => {
  it("approve only from rejected; reject from any status but uploading", () => {
    expect(reviewTransition("rejected", "approve")).toEqual({ to: "approved" });
    for (const status of ["uploading", "pending", "approved", "error"] as const) {
      expect(reviewTransition(status, "approve")).toEqual({ refused: expect.stringContaining(status) });
    }
    for (const status of ["pending", "approved", "rejected", "error"] as const) expect(reviewTransition(status, "reject")).toEqual({ to: "rejected" });
    expect(reviewTransition("uploading", "reject")).toEqual({ refused: expect.any(String) });
  });

  it("a blank note is no note", () => {
    expect(normaliseNote(undefined)).toBeNull();
    expect(normaliseNote(null)).toBeNull();
    expect(normaliseNote("  \n ")).toBeNull();
    expect(normaliseNote("  spam ")).toBe("spam");
  });
});

describe("review events", () => {
  const row = {
    id: "a1", projectId: "p1", name: "cat.jpg", type: "plaintext_document", externalId: "ext", status: "rejected",
    flagged: true, moderationAction: "hide",
  } as unknown as AssetRow;

  it("carry exactly the spec's facts, in order, and the asset snapshot", () => {
    const event = reviewEvent(row, "reject", { userId: null, name: "ci key" }, null);
    expect(event).toMatchObject({ type: "asset.rejected", userId: null, projectId: "p1" });
    expect(event.facts).toEqual([
      { key: "asset-name", value: "cat.jpg" },
      { key: "asset-type", value: "plaintext-document" },
      { key: "reviewer-user-id", value: null },
      { key: "reviewer-name", value: "ci key" },
      { key: "note", value: null },
    ]);
    expect(event.asset).toEqual({ id: "a1", externalId: "ext", status: "rejected", flagged: true, moderationAction: "hide" });
    const approved = reviewEvent({ ...row, status: "approved" }, "approve", { userId: "u1", name: "Ann" }, "fine");
    expect(approved).toMatchObject({ type: "asset.approved", userId: "u1", description: "Approved by Ann: fine" });
    expect(approved.facts.map((f) => [f.key, f.value])).toEqual([
      ["asset-name", "cat.jpg"], ["asset-type", "plaintext-document"], ["reviewer-user-id", "u1"], ["reviewer-name", "Ann"], ["note", "fine"],
    ]);
  });
});
