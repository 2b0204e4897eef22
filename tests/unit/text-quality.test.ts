import { describe, expect, it } from "vitest";
import { TEXT_QUALITY_TARGETS, TEXT_SETS, evaluateTexts, loadLabelledTexts } from "@/bench/text-quality";
import { QUALIFIER_KEYS } from "@/lib/moderation/report";

const dev = loadLabelledTexts(TEXT_SETS.dev);
const heldout = loadLabelledTexts(TEXT_SETS.heldout);

describe("labelled text sets (tests/fixtures/moderation)", () => {
  it("are large, disjoint, ≥ 40% hard negatives and cover every category and qualifier", () => {
    const all = [...dev, ...heldout];
    expect(all.length).toBeGreaterThanOrEqual(600);
    const devTexts = new Set(dev.map((i) => i.text));
    expect(heldout.filter((i) => devTexts.has(i.text))).toEqual([]);
    expect(all.filter((i) => i.kind === "hard-negative").length / all.length).toBeGreaterThanOrEqual(0.4);
    const seen = new Set(all.flatMap((i) => [...Object.values(i.qualifiers ?? {}).flat(), ...(i.context ? [i.context] : [])]));
    expect(QUALIFIER_KEYS.filter((q) => !seen.has(q))).toEqual([]);
    for (const item of all) expect(item.kind === "harmful").toBe(item.categories.length > 0);
  });
});

describe("text classifier quality floor", () => {
  it.each([
    ["dev", dev],
    ["held-out", heldout],
  ] as const)("%s split meets the macro-F1 and benign false-positive targets", (_name, items) => {
    const report = evaluateTexts(items);
    expect(report.macroF1).toBeGreaterThanOrEqual(TEXT_QUALITY_TARGETS.macroF1);
    expect(report.benignFalsePositiveRate).toBeLessThanOrEqual(TEXT_QUALITY_TARGETS.benignFalsePositiveRate);
  });
});
