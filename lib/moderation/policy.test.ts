import { describe, expect, it } from "vitest";
import { DEFAULT_ACTION, DEFAULT_THRESHOLDS, decide, failClosed, resolveThresholds } from "./policy";
import { CATEGORIES, buildReport, type CategoryJudgements } from "./report";

function report(categories: CategoryJudgements) {
  return buildReport({ categories, thresholds: DEFAULT_THRESHOLDS });
}

const clean = report({ sexual: { status: "evaluated", score: 0.1 }, hate: { status: "evaluated", score: 0.59 } });
const violent = report({ violence: { status: "evaluated", score: 0.8 }, hate: { status: "partial", score: 0.61 } });

describe("thresholds", () => {
  it("defaults to 0.6 everywhere and applies partial overrides", () => {
    for (const c of CATEGORIES) expect(DEFAULT_THRESHOLDS[c]).toBe(0.6);
    const t = resolveThresholds({ hate: 0.3 });
    expect(t.hate).toBe(0.3);
    expect(t.violence).toBe(0.6);
    expect(resolveThresholds(null)).toEqual(DEFAULT_THRESHOLDS);
  });

  it("rejects unknown categories and values outside 0..1", () => {
    expect(() => resolveThresholds({ spam: 0.5 } as any)).toThrow();
    expect(() => resolveThresholds({ hate: 1.5 })).toThrow();
  });
});

describe("decide", () => {
  it("approves unflagged content with moderationAction null, whatever the action", () => {
    for (const action of ["ignore", "alert", "hide", "purge"] as const) {
      expect(decide(clean, { action })).toEqual({
        flagged: false,
        flaggedCategories: [],
        status: "approved",
        moderationAction: null,
        removeContent: false,
        flagEvent: null,
        unavailableCategories: [],
      });
    }
  });

  it("ignore: approved, action recorded, no flag event", () => {
    const d = decide(violent, { action: "ignore" });
    expect(d).toMatchObject({ flagged: true, status: "approved", moderationAction: "ignore", removeContent: false, flagEvent: null });
    expect(d.flaggedCategories).toEqual(["violence", "hate"]);
  });

  it("alert: approved and flagged, event with notify", () => {
    expect(decide(violent, { action: "alert" })).toMatchObject({
      flagged: true,
      status: "approved",
      moderationAction: "alert",
      removeContent: false,
      flagEvent: { notify: true, moderationAction: "alert", flaggedCategories: ["violence", "hate"] },
    });
  });

  it("hide: rejected, content kept", () => {
    expect(decide(violent, { action: "hide" })).toMatchObject({ status: "rejected", moderationAction: "hide", removeContent: false });
    expect(decide(violent, { action: "hide" }).flagEvent?.moderationAction).toBe("hide");
  });

  it("purge: rejected and content removed", () => {
    expect(decide(violent, { action: "purge" })).toMatchObject({ status: "rejected", moderationAction: "purge", removeContent: true });
  });

  it("uses the project default action when the upload names none, else DEFAULT_ACTION", () => {
    expect(decide(violent, { action: null, defaultAction: "alert" }).moderationAction).toBe("alert");
    expect(decide(violent, { action: "purge", defaultAction: "alert" }).moderationAction).toBe("purge");
    expect(decide(violent).moderationAction).toBe(DEFAULT_ACTION);
    expect(DEFAULT_ACTION).toBe("hide");
  });

  it("applies threshold overrides per category", () => {
    expect(decide(clean, { thresholds: { hate: 0.5 }, action: "hide" })).toMatchObject({
      flagged: true,
      flaggedCategories: ["hate"],
      status: "rejected",
    });
    expect(decide(violent, { thresholds: { violence: 0.9, hate: 0.9 }, action: "hide" }).flagged).toBe(false);
  });

  it("never flags not-evaluated categories but lists unavailable ones", () => {
    const r = report({ hate: { status: "not-evaluated", reason: "unavailable" } });
    expect(decide(r, { thresholds: { hate: 0 } })).toMatchObject({ flagged: false, status: "approved", unavailableCategories: ["hate"] });
  });

  it("flags categories crossing the threshold in a media segment", () => {
    const r = buildReport({
      categories: {},
      thresholds: DEFAULT_THRESHOLDS,
      media: {
        durationSeconds: 4,
        frameIntervalSeconds: 1,
        sampledFrames: 4,
        audioTranscribed: false,
        segments: [{ source: "frame", startSeconds: 1, endSeconds: 2, categories: { sexual: { status: "evaluated", score: 0.95 } } }],
      },
    });
    expect(decide(r, { action: "hide" })).toMatchObject({ flagged: true, flaggedCategories: ["sexual"], status: "rejected" });
  });
});

describe("failClosed", () => {
  const gap = [{ part: "image", reason: "the image could not be decoded: bad IHDR" }];

  it("leaves a fully analysed decision as it is", () => {
    expect(failClosed(decide(clean), [], "reject")).toMatchObject({ status: "approved", notAnalysed: null });
  });

  it("rejects for review by default, keeping the content even when purge would remove it", () => {
    const decision = failClosed({ ...decide(clean), removeContent: false }, gap, "reject");
    expect(decision).toMatchObject({ status: "rejected", moderationAction: null, removeContent: false, flagged: false });
    expect(decision.notAnalysed).toEqual({ action: "reject", summary: "image (the image could not be decoded: bad IHDR)" });
  });

  it("error makes the asset fail; approve approves but still says what was skipped", () => {
    expect(failClosed(decide(clean), gap, "error")).toMatchObject({ status: "error", removeContent: false });
    expect(failClosed(decide(clean), gap, "approve")).toMatchObject({ status: "approved", notAnalysed: { action: "approve" } });
  });

  it("an alert flag does not approve what was not analysed; a hide or purge rejection stands", () => {
    expect(failClosed(decide(violent, { action: "alert" }), gap, "reject")).toMatchObject({ status: "rejected", moderationAction: "alert" });
    const purged = failClosed(decide(violent, { action: "purge" }), gap, "reject");
    expect(purged).toMatchObject({ status: "rejected", moderationAction: "purge", removeContent: true, notAnalysed: null });
  });
});
