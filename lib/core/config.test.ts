import { describe, expect, it } from "vitest";
import { loadConfig } from "./config";

/** ProcessEnv may be augmented with required keys (NODE_ENV); a test passes only what it sets. */
const env = (vars: Record<string, string>) => vars as unknown as NodeJS.ProcessEnv;

describe("CONNECTOR_RETRY_SCHEDULE", () => {
  it("defaults to Svix's schedule and reads the same duration strings as the executor", () => {
    expect(loadConfig(env({})).connectors.retryScheduleMs).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
    expect(loadConfig(env({ CONNECTOR_RETRY_SCHEDULE: "200ms, 1h30m,2d" })).connectors.retryScheduleMs).toEqual([200, 5_400_000, 172_800_000]);
  });

  it("refuses a list with something that is not a duration", () => {
    expect(() => loadConfig(env({ CONNECTOR_RETRY_SCHEDULE: "5s,soon" }))).toThrow(/CONNECTOR_RETRY_SCHEDULE: must be durations/);
  });
});
