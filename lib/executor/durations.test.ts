import { describe, expect, it } from "vitest";
import { parseDuration, wakeTime } from "./durations";

describe("parseDuration", () => {
  it.each([
    ["500ms", 500],
    ["30s", 30_000],
    ["1.5s", 1_500],
    ["5m", 300_000],
    ["1h30m", 5_400_000],
    ["2h30m10s", 9_010_000], // what the SDK's timeStr produces
    ["2d", 172_800_000],
    ["1w", 604_800_000],
    ["1w2d", 777_600_000],
    [" 10s ", 10_000],
    ["0s", 0],
  ])("%s → %d ms", (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(["", "   ", "garbage", "10", "5x", "s", "1h 30m", "-1s", "1h30", "ms500", "1y", "2026-01-01T00:00:00Z"])(
    "%j is not a duration",
    (text) => {
      expect(parseDuration(text)).toBeUndefined();
    },
  );

  it("can be called repeatedly (the sticky regex is reset)", () => {
    expect(parseDuration("1h")).toBe(3_600_000);
    expect(parseDuration("garbage")).toBeUndefined();
    expect(parseDuration("1h")).toBe(3_600_000);
  });
});

describe("wakeTime", () => {
  const now = Date.UTC(2030, 0, 1, 12, 0, 0);

  it("adds a duration to now (step.sleep)", () => {
    expect(wakeTime("1s", now)).toBe(now + 1_000);
    expect(wakeTime("1h30m", now)).toBe(now + 5_400_000);
  });

  it("reads ISO dates as absolute times (step.sleepUntil sends toISOString())", () => {
    const until = new Date(now + 86_400_000);
    expect(wakeTime(until.toISOString(), now)).toBe(until.getTime());
    expect(wakeTime("2020-01-01T00:00:00.000Z", now)).toBe(Date.UTC(2020, 0, 1)); // past: runnable at once
    expect(wakeTime("2030-06-01T10:00:00+02:00", now)).toBe(Date.UTC(2030, 5, 1, 8));
  });

  it("returns undefined for garbage", () => {
    expect(wakeTime("garbage", now)).toBeUndefined();
    expect(wakeTime("soon", now)).toBeUndefined();
    expect(wakeTime("", now)).toBeUndefined();
  });
});
