import { describe, expect, it } from "vitest";
import {
  CATEGORIES,
  QUALIFIER_KEYS,
  buildReport,
  likelihoodForScore,
  reportSchema,
  reportSchemaFor,
  type CategoryThresholds,
  type Report,
} from "./report";

const thresholds = Object.fromEntries(CATEGORIES.map((c) => [c, 0.6])) as CategoryThresholds;

function specReport(): Report {
  return {
    categories: {
      sexual: { status: "evaluated", likelihood: "very-unlikely", score: 0.01, qualifiers: { nudity: { status: "evaluated", score: 0.02, likelihood: "very-unlikely", scopeScore: 0.5 } } },
      violence: { status: "partial", likelihood: "likely", score: 0.7, qualifiers: { graphic: { status: "not-evaluated", reason: "unavailable" } } },
      "self-harm": { status: "not-evaluated", reason: "not-supported" },
      harassment: { status: "not-evaluated", reason: "unavailable", qualifiers: { "harassment-threat": { status: "not-evaluated", reason: "not-supported" } } },
      hate: { status: "evaluated", likelihood: "unlikely", score: 0.2 },
      "criminal-activity": { status: "evaluated", likelihood: "very-unlikely", score: 0 },
    },
    flagged: true,
    score: 0.7,
    notes: null,
  };
}

const media = {
  durationSeconds: 12.5,
  frameIntervalSeconds: 2,
  sampledFrames: 7,
  audioTranscribed: true,
  segments: [{ source: "frame" as const, startSeconds: 0, endSeconds: 2, categories: specReport().categories }],
};

describe("reportSchema", () => {
  it("accepts a spec-shaped report, with and without media", () => {
    expect(reportSchema.safeParse(specReport()).success).toBe(true);
    expect(reportSchema.safeParse({ ...specReport(), media, notes: { any: ["json", 1] } }).success).toBe(true);
  });

  it("has exactly the spec's category and qualifier keys", () => {
    expect(CATEGORIES).toEqual(["sexual", "violence", "self-harm", "harassment", "hate", "criminal-activity"]);
    expect(QUALIFIER_KEYS).toHaveLength(35);
    expect(new Set(QUALIFIER_KEYS).size).toBe(35);
  });

  const wrong: [string, (r: any) => void][] = [
    ["a missing category", (r) => delete r.categories.hate],
    ["an extra category", (r) => (r.categories.spam = { status: "not-evaluated", reason: "not-supported" })],
    ["an unknown status", (r) => (r.categories.hate = { status: "skipped", reason: "unavailable" })],
    ["evaluated without likelihood", (r) => delete r.categories.hate.likelihood],
    ["evaluated without score", (r) => delete r.categories.hate.score],
    ["a score above 1", (r) => (r.categories.hate.score = 1.2)],
    ["a negative score", (r) => (r.categories.hate.score = -0.1)],
    ["an unknown likelihood", (r) => (r.categories.hate.likelihood = "certain")],
    ["not-evaluated without reason", (r) => delete r.categories["self-harm"].reason],
    ["an unknown reason", (r) => (r.categories["self-harm"].reason = "timeout")],
    ["not-evaluated with a score", (r) => (r.categories["self-harm"].score = 0.1)],
    ["an unknown qualifier key", (r) => (r.categories.sexual.qualifiers.minors = { status: "not-evaluated", reason: "unavailable" })],
    ["a qualifier without likelihood", (r) => delete r.categories.sexual.qualifiers.nudity.likelihood],
    ["a qualifier scopeScore above 1", (r) => (r.categories.sexual.qualifiers.nudity.scopeScore = 2)],
    ["missing flagged", (r) => delete r.flagged],
    ["missing score", (r) => delete r.score],
    ["missing notes", (r) => delete r.notes],
    ["an unknown top-level field", (r) => (r.verdict = "ok")],
  ];
  it.each(wrong)("rejects %s", (_name, mutate) => {
    const r = structuredClone(specReport());
    mutate(r);
    expect(reportSchema.safeParse(r).success).toBe(false);
  });

  const wrongMedia: [string, (m: any) => void][] = [
    ["durationSeconds 0", (m) => (m.durationSeconds = 0)],
    ["frameIntervalSeconds 0", (m) => (m.frameIntervalSeconds = 0)],
    ["fractional sampledFrames", (m) => (m.sampledFrames = 1.5)],
    ["missing audioTranscribed", (m) => delete m.audioTranscribed],
    ["an unknown segment source", (m) => (m.segments[0].source = "subtitle")],
    ["a negative startSeconds", (m) => (m.segments[0].startSeconds = -1)],
    ["end before start", (m) => (m.segments[0].startSeconds = 5)],
    ["segment categories missing a key", (m) => delete m.segments[0].categories.sexual],
  ];
  it.each(wrongMedia)("rejects media with %s", (_name, mutate) => {
    const m = structuredClone(media);
    mutate(m);
    expect(reportSchema.safeParse({ ...specReport(), media: m }).success).toBe(false);
  });

  it("requires media for audio/video only", () => {
    expect(reportSchemaFor("video").safeParse(specReport()).success).toBe(false);
    expect(reportSchemaFor("audio").safeParse({ ...specReport(), media }).success).toBe(true);
    expect(reportSchemaFor("image").safeParse(specReport()).success).toBe(true);
    expect(reportSchemaFor("image").safeParse({ ...specReport(), media }).success).toBe(false);
  });
});

describe("likelihoodForScore", () => {
  it.each([
    [0, "very-unlikely"],
    [0.1499, "very-unlikely"],
    [0.15, "unlikely"],
    [0.3499, "unlikely"],
    [0.35, "possible"],
    [0.5999, "possible"],
    [0.6, "likely"],
    [0.8499, "likely"],
    [0.85, "very-likely"],
    [1, "very-likely"],
  ] as const)("%s → %s", (score, expected) => {
    expect(likelihoodForScore(score)).toBe(expected);
  });

  it.each([-0.01, 1.01, Number.NaN, Number.POSITIVE_INFINITY])("rejects %s", (score) => {
    expect(() => likelihoodForScore(score)).toThrow(RangeError);
  });
});

describe("buildReport", () => {
  it("marks categories nobody judged as not-supported and never invents scores", () => {
    const report = buildReport({ categories: { sexual: { status: "evaluated", score: 0.2 } }, thresholds });
    expect(report.categories.sexual).toEqual({ status: "evaluated", score: 0.2, likelihood: "unlikely" });
    for (const c of CATEGORIES.filter((c) => c !== "sexual")) {
      expect(report.categories[c]).toEqual({ status: "not-evaluated", reason: "not-supported" });
    }
    expect(report).toMatchObject({ flagged: false, score: 0.2, notes: null });
    expect(report.media).toBeUndefined();
  });

  it("keeps provider failures as unavailable and reports score 0 when nothing was evaluated", () => {
    const report = buildReport({
      categories: { hate: { status: "not-evaluated", reason: "unavailable" } },
      thresholds,
      notes: { providers: [] },
    });
    expect(report.categories.hate).toEqual({ status: "not-evaluated", reason: "unavailable" });
    expect(report.score).toBe(0);
    expect(report.flagged).toBe(false);
    expect(report.notes).toEqual({ providers: [] });
  });

  it("adds likelihoods to scores and qualifiers, and flags at the threshold", () => {
    const report = buildReport({
      categories: { violence: { status: "partial", score: 0.6, qualifiers: { graphic: 0.9 } }, hate: { status: "evaluated", score: 0.1 } },
      thresholds,
    });
    expect(report.categories.violence).toEqual({
      status: "partial",
      score: 0.6,
      likelihood: "likely",
      qualifiers: { graphic: { status: "evaluated", score: 0.9, likelihood: "very-likely" } },
    });
    expect(report.flagged).toBe(true);
    expect(report.score).toBe(0.6);
    expect(reportSchema.safeParse(report).success).toBe(true);
  });

  it("uses per-category thresholds", () => {
    const strict = { ...thresholds, hate: 0.1 };
    expect(buildReport({ categories: { hate: { status: "evaluated", score: 0.1 } }, thresholds: strict }).flagged).toBe(true);
    expect(buildReport({ categories: { hate: { status: "evaluated", score: 0.1 } }, thresholds }).flagged).toBe(false);
  });

  it("throws on scores outside 0..1 or unknown qualifiers instead of storing them", () => {
    expect(() => buildReport({ categories: { hate: { status: "evaluated", score: 1.5 } }, thresholds })).toThrow(RangeError);
    expect(() =>
      buildReport({ categories: { hate: { status: "evaluated", score: 0.5, qualifiers: { bogus: 0.1 } as any } }, thresholds }),
    ).toThrow(RangeError);
  });

  it("builds media segments and takes them into account for flagged and score", () => {
    const report = buildReport({
      categories: { sexual: { status: "evaluated", score: 0.1 } },
      thresholds,
      media: {
        durationSeconds: 10,
        frameIntervalSeconds: 1,
        sampledFrames: 10,
        audioTranscribed: false,
        segments: [{ source: "frame", startSeconds: 3, endSeconds: 4, categories: { sexual: { status: "evaluated", score: 0.9 } } }],
      },
    });
    expect(report.media?.segments[0]?.categories.sexual).toEqual({ status: "evaluated", score: 0.9, likelihood: "very-likely" });
    expect(report.media?.segments[0]?.categories.hate).toEqual({ status: "not-evaluated", reason: "not-supported" });
    expect(report.flagged).toBe(true);
    expect(report.score).toBe(0.9);
    expect(reportSchemaFor("video").safeParse(report).success).toBe(true);
  });
});
