import { describe, expect, it } from "vitest";
import { asForeground, waitForQuiet } from "./foreground";

describe("foreground work", () => {
  it("holds background work back while foreground work runs, and for the quiet time after it", async () => {
    let release!: () => void;
    const running = asForeground(() => new Promise<void>((resolve) => (release = resolve)));
    let waited = false;
    const waiting = waitForQuiet({ quietMs: 150, maxWaitMs: 10_000, pollMs: 10 }).then((quiet) => (waited = quiet));
    await new Promise((r) => setTimeout(r, 100));
    expect(waited).toBe(false);
    const releasedAt = Date.now();
    release();
    await running;
    expect(await waiting).toBe(true);
    expect(Date.now() - releasedAt).toBeGreaterThanOrEqual(140);
  });

  it("stops waiting at maxWaitMs however busy the foreground is, and says it is not quiet", async () => {
    let release!: () => void;
    const running = asForeground(() => new Promise<void>((resolve) => (release = resolve)));
    const start = Date.now();
    expect(await waitForQuiet({ quietMs: 50, maxWaitMs: 200, pollMs: 10 })).toBe(false);
    expect(Date.now() - start).toBeGreaterThanOrEqual(190);
    expect(Date.now() - start).toBeLessThan(2000);
    release();
    await running;
  });
});
