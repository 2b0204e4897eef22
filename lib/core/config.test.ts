import { describe, expect, it } from "vitest";
import { loadConfig } from "./config";

/** ProcessEnv may be augmented with required keys (NODE_ENV); a test passes only what it sets. */
const env = (vars: Record<string, string>) => vars as unknown as NodeJS.ProcessEnv;

/** The default and simple lists are covered by lib/connectors/delivery/schedule.test.ts. */
describe("CONNECTOR_RETRY_SCHEDULE", () => {
  it("reads the same duration strings as the executor's sleeps, compound ones included", () => {
    expect(loadConfig(env({ CONNECTOR_RETRY_SCHEDULE: "200ms, 1h30m,2d" })).connectors.retryScheduleMs).toEqual([200, 5_400_000, 172_800_000]);
  });

  it("refuses a list with something that is not a duration", () => {
    expect(() => loadConfig(env({ CONNECTOR_RETRY_SCHEDULE: "5s,soon" }))).toThrow(/CONNECTOR_RETRY_SCHEDULE: must be durations/);
  });
});
