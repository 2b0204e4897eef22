import { describe, expect, it } from "vitest";
import { loadConfig } from "@/lib/core/config";
import { connectorFailingEvent, describeDuration, failureRun } from "./failing";
import { maxAttempts, retryDelayMs } from "./schedule";

const env = (vars: Record<string, string>) => vars as unknown as NodeJS.ProcessEnv;

describe("retry schedule", () => {
  it("defaults to Svix's: at once, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h", () => {
    const schedule = loadConfig(env({})).connectors.retryScheduleMs;
    expect(schedule).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
    expect(maxAttempts(schedule)).toBe(8);
    expect([1, 2, 7, 8].map((n) => retryDelayMs(schedule, n))).toEqual([5_000, 300_000, 36_000_000, null]);
  });

  it("reads CONNECTOR_RETRY_SCHEDULE", () => {
    const schedule = loadConfig(env({ CONNECTOR_RETRY_SCHEDULE: "200ms, 1s,2m" })).connectors.retryScheduleMs;
    expect(schedule).toEqual([200, 1000, 120_000]);
    expect(retryDelayMs(schedule, 3)).toBe(120_000);
    expect(retryDelayMs(schedule, 4)).toBeNull();
  });
});

describe("disable rule", () => {
  const rule = { disableAfterFailures: 3, disableAfterFailingMs: 60_000 };
  const now = new Date("2026-01-01T01:00:00Z");
  const locked = (consecutiveFailures: number, failingForMs: number | null, enabled = true) => ({
    enabled,
    consecutiveFailures,
    failingSince: failingForMs === null ? null : new Date(now.getTime() - failingForMs),
    now,
  });

  it("needs both enough failures in a row and a long enough failing time", () => {
    expect(failureRun(locked(0, null), false, rule)).toEqual({ consecutiveFailures: 1, failingSince: now, disableReason: null });
    expect(failureRun(locked(2, 59_000), false, rule).disableReason).toBeNull();
    expect(failureRun(locked(1, 3_600_000), false, rule).disableReason).toBeNull();
    expect(failureRun(locked(2, 60_000), false, rule).disableReason).toBe("3 delivery attempts in a row failed over 60 seconds.");
  });

  it("turns off at once on 410, and never twice", () => {
    expect(failureRun(locked(0, null), true, rule).disableReason).toMatch(/410 Gone/);
    expect(failureRun(locked(10, 3_600_000, false), true, rule).disableReason).toBeNull();
    expect(failureRun(locked(10, 3_600_000, false), false, rule).disableReason).toBeNull();
  });

  it("records connector.failing with exactly the five facts, in order", () => {
    const run = failureRun(locked(2, 60_000), false, rule);
    const event = connectorFailingEvent({ id: "c-1", projectId: "p-1", name: "Hook", type: "webhook" }, run, "HTTP 500");
    expect(event).toMatchObject({ projectId: "p-1", type: "connector.failing", title: 'Connector "Hook" was turned off', userId: null, asset: null });
    expect(event.facts).toEqual([
      { key: "connector-id", value: "c-1" },
      { key: "connector-name", value: "Hook" },
      { key: "connector-type", value: "webhook" },
      { key: "consecutive-failures", value: 3 },
      { key: "last-error", value: "HTTP 500" },
    ]);
    expect(event.description).toContain("3 delivery attempts in a row failed");
  });

  it("describes durations readably", () => {
    expect([0, 1000, 119_000, 3_600_000, 86_400_000 * 3].map(describeDuration)).toEqual([
      "0 seconds",
      "1 second",
      "119 seconds",
      "60 minutes",
      "3 days",
    ]);
  });
});
