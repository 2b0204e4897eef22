import { describe, expect, it } from "vitest";
import { inboxSearchParams } from "@/components/events/filters-model";
import { freshIds } from "@/components/events/use-arrivals";

describe("the inbox's arrivals", () => {
  it("counts only ids above the newest one seen", () => {
    const seen = new Set(["c", "d"]);
    expect(freshIds(["a", "b", "c", "d"], seen)).toEqual(["a", "b"]);
    // Older pages loaded below are not news.
    expect(freshIds(["c", "d", "e", "f"], seen)).toEqual([]);
    expect(freshIds(["a", "c", "d", "e"], seen)).toEqual(["a"]);
    // A whole page of news pushed everything seen off the first pages.
    expect(freshIds(["x", "y"], seen)).toEqual(["x", "y"]);
  });
});

describe("the inbox's query string", () => {
  it("sends only the filters that are set, in the route's grammar", () => {
    expect(inboxSearchParams({ type: "", severity: "", state: "" }, null)).toBe("");
    expect(inboxSearchParams({ type: "asset.flagged", severity: "high", state: "unread" }, "djEuMS4y")).toBe(
      "type=asset.flagged&severity=high&unread=true&cursor=djEuMS4y",
    );
    expect(inboxSearchParams({ type: "", severity: "low", state: "read" }, null)).toBe("severity=low&unread=false");
  });
});
