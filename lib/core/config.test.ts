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

describe("SIEVE_IMAGE_LABEL_PROVIDERS", () => {
  it("is the detector by default; the describer comes beside it, with its endpoint", () => {
    expect(loadConfig(env({})).pipeline.imageLabelProviders).toEqual(["detector"]);
    const both = loadConfig(env({ SIEVE_IMAGE_LABEL_PROVIDERS: "detector, describer", SIEVE_IMAGE_DESCRIBER_BASE_URL: "http://localhost:11434/v1", SIEVE_IMAGE_DESCRIBER_MODEL: "qwen2.5vl:3b" }));
    expect(both.pipeline.imageLabelProviders).toEqual(["detector", "describer"]);
    expect(both.pipeline.imageDescriber).toMatchObject({ baseUrl: "http://localhost:11434/v1", model: "qwen2.5vl:3b", attemptTimeoutMs: 60_000, retries: 2 });
  });

  it("refuses an unknown provider, a list without the detector, and a describer without its endpoint", () => {
    expect(() => loadConfig(env({ SIEVE_IMAGE_LABEL_PROVIDERS: "detector,clip" }))).toThrow(/SIEVE_IMAGE_LABEL_PROVIDERS.*detector or describer/);
    expect(() => loadConfig(env({ SIEVE_IMAGE_LABEL_PROVIDERS: "describer", SIEVE_IMAGE_DESCRIBER_BASE_URL: "http://x/v1", SIEVE_IMAGE_DESCRIBER_MODEL: "m" }))).toThrow(
      /must include detector/,
    );
    expect(() => loadConfig(env({ SIEVE_IMAGE_LABEL_PROVIDERS: "detector,describer" }))).toThrow(/describer needs SIEVE_IMAGE_DESCRIBER_BASE_URL/);
  });
});
