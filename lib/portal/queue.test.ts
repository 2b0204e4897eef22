import { describe, expect, it } from "vitest";
import { decodeCursor, encodeCursor, minimumScore, topCategory } from "@/lib/portal/queue";

describe("review queue helpers", () => {
  it("maps a likelihood to the lowest score of its band", () => {
    expect([minimumScore("very-unlikely"), minimumScore("unlikely"), minimumScore("possible"), minimumScore("likely"), minimumScore("very-likely")]).toEqual([
      0, 0.15, 0.35, 0.6, 0.85,
    ]);
  });

  it("round-trips cursors and refuses forged ones", () => {
    const row = { createdAt: new Date(1_790_000_000_123), id: "0b7c1e9e-2f55-4a53-9d8e-3c1a51c8a0f2" };
    expect(decodeCursor(encodeCursor(row))).toEqual({ t: row.createdAt.getTime(), id: row.id });
    for (const bad of ["", "x", Buffer.from('{"t":"now","id":"x"}').toString("base64url"), Buffer.from("[]").toString("base64url")]) {
      expect(() => decodeCursor(bad)).toThrow(/cursor/);
    }
  });

  it("names the highest-scoring judged category, ignoring ones not evaluated", () => {
    const report = {
      categories: {
        sexual: { status: "not-evaluated", reason: "unavailable" },
        violence: { status: "evaluated", score: 0.7, likelihood: "likely" },
        harassment: { status: "partial", score: 0.9, likelihood: "very-likely" },
      },
    };
    expect(topCategory(report)).toEqual({ category: "harassment", likelihood: "very-likely", score: 0.9 });
    expect(topCategory(null)).toBeNull();
    expect(topCategory({ categories: { sexual: { status: "not-evaluated", reason: "not-supported" } } })).toBeNull();
  });
});
