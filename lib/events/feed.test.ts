import { describe, expect, it } from "vitest";
import { decodeCursor, encodeCursor, isFiltered, nextPosition, START_CURSOR } from "@/lib/events/feed";
import { eventTypeList } from "@/lib/events/endpoints";
import { EVENT_TYPES } from "@/lib/events/catalogue";

const at = (txid: number, seq: number) => ({ txid: BigInt(txid), seq: BigInt(seq) });

describe("feed cursors", () => {
  it("djEuMC4w is position (0, 0): the start of the feed", () => {
    expect(Buffer.from("v1.0.0").toString("base64url")).toBe(START_CURSOR);
    expect(decodeCursor(START_CURSOR)).toEqual(at(0, 0));
    expect(encodeCursor(at(0, 0))).toBe(START_CURSOR);
  });

  it("round-trips and refuses anything but a canonical v1 cursor", () => {
    expect(decodeCursor(encodeCursor(at(123456, 789)))).toEqual(at(123456, 789));
    const max = { txid: 2n ** 63n - 1n, seq: 2n ** 63n - 1n };
    expect(decodeCursor(encodeCursor(max))).toEqual(max);
    const refused = ["", "not-a-cursor", `${START_CURSOR}=`, Buffer.from("v1.0").toString("base64url"), Buffer.from("v2.0.0").toString("base64url"),
      Buffer.from("v1.01.0").toString("base64url"), Buffer.from("v1.-1.0").toString("base64url"),
      Buffer.from(`v1.${"9".repeat(19)}.0`).toString("base64url"), Buffer.from(`v1.0.${2n ** 63n}`).toString("base64url")];
    for (const cursor of refused) expect(() => decodeCursor(cursor), cursor).toThrow(expect.objectContaining({ code: "events/invalid-cursor" }));
  });
});

describe("nextPosition", () => {
  const from = at(100, 5);
  it("unfiltered: the last event returned, or where the page started", () => {
    expect(nextPosition({ from, last: at(120, 9), horizon: 500n, filtered: false, hasMore: false })).toEqual(at(120, 9));
    expect(nextPosition({ from, last: undefined, horizon: 500n, filtered: false, hasMore: false })).toEqual(from);
  });

  it("filtered with more matches: the last event returned (the rest is still to be read)", () => {
    expect(nextPosition({ from, last: at(120, 9), horizon: 500n, filtered: true, hasMore: true })).toEqual(at(120, 9));
  });

  it("filtered and nothing more: past everything examined, (horizon, 0), never backwards", () => {
    expect(nextPosition({ from, last: at(120, 9), horizon: 500n, filtered: true, hasMore: false })).toEqual(at(500, 0));
    expect(nextPosition({ from, last: undefined, horizon: 500n, filtered: true, hasMore: false })).toEqual(at(500, 0));
    // A cursor already beyond the horizon (it cannot go back).
    expect(nextPosition({ from: at(600, 1), last: undefined, horizon: 500n, filtered: true, hasMore: false })).toEqual(at(600, 1));
    expect(nextPosition({ from: at(500, 3), last: undefined, horizon: 500n, filtered: true, hasMore: false })).toEqual(at(500, 3));
  });

  it("a filter is any of type, severity, unread (unread=false included)", () => {
    expect(isFiltered({})).toBe(false);
    expect(isFiltered({ types: ["asset.flagged"] })).toBe(true);
    expect(isFiltered({ severity: "low" })).toBe(true);
    expect(isFiltered({ unread: false })).toBe(true);
  });
});

describe("the type filter", () => {
  it("takes known types, comma-separated, deduplicated", () => {
    expect(eventTypeList.parse("asset.flagged")).toEqual(["asset.flagged"]);
    expect(eventTypeList.parse("asset.flagged, asset.failed,asset.flagged")).toEqual(["asset.flagged", "asset.failed"]);
    expect(eventTypeList.parse(Object.keys(EVENT_TYPES).join(","))).toEqual(Object.keys(EVENT_TYPES));
  });

  it("refuses unknown and empty types, naming them", () => {
    for (const value of ["", "asset.flaged", "asset.flagged,", "asset.flagged,,asset.failed", "ASSET.FLAGGED"]) {
      const result = eventTypeList.safeParse(value);
      expect(result.success, value).toBe(false);
    }
    expect(eventTypeList.safeParse("asset.flagged,nope").error?.issues[0]?.message).toContain('"nope"');
  });
});
