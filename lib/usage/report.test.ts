import { describe, expect, it } from "vitest";
import { fillDays, windowStart } from "@/lib/usage/report";

describe("usage windows", () => {
  it("starts at UTC midnight, days - 1 days before today", () => {
    const now = Date.parse("2026-11-24T23:59:00Z");
    expect(windowStart(now, 7).toISOString()).toBe("2026-11-18T00:00:00.000Z");
    expect(windowStart(now, 1).toISOString()).toBe("2026-11-24T00:00:00.000Z");
  });

  it("lists every day of the window oldest first, zeros where nothing was decided", () => {
    const start = windowStart(Date.parse("2026-03-02T10:00:00Z"), 3); // across the end of February
    const counted = { day: "2026-03-01", autoApproved: 4, autoRejected: 1, autoError: 0, reviewerApproved: 2, reviewerRejected: 0 };
    const days = fillDays(start, 3, [counted]);
    expect(days.map((d) => d.day)).toEqual(["2026-02-28", "2026-03-01", "2026-03-02"]);
    expect(days[1]).toEqual(counted);
    expect(days[0]).toEqual({ day: "2026-02-28", autoApproved: 0, autoRejected: 0, autoError: 0, reviewerApproved: 0, reviewerRejected: 0 });
  });
});
