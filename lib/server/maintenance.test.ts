import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { startPeriodicTasks } from "./maintenance";

/** The server's periodic tasks: the shutdown closes the database once their stop function resolves. */
beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  vi.useRealTimers();
});

describe("periodic tasks", () => {
  it("runs a task at once and then every interval, never two runs at once", async () => {
    let release: () => void = () => undefined;
    const run = vi.fn(() => new Promise<void>((resolve) => (release = resolve)));
    const stop = startPeriodicTasks([{ label: "t", intervalMs: 100, run }]);
    await vi.advanceTimersByTimeAsync(0);
    expect(run).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(350);
    expect(run, "the first run is not over").toHaveBeenCalledTimes(1);
    release();
    await vi.advanceTimersByTimeAsync(100);
    expect(run).toHaveBeenCalledTimes(2);
    release();
    await stop();
  });

  it("resolves its stop once the run in progress is over, and runs no more", async () => {
    let release: () => void = () => undefined;
    let finished = false;
    const run = vi.fn(() => new Promise<void>((resolve) => (release = resolve)).then(() => void (finished = true)));
    const stop = startPeriodicTasks([{ label: "t", intervalMs: 100, run }]);
    await vi.advanceTimersByTimeAsync(0);
    let stopped = false;
    void stop().then(() => (stopped = true));
    await vi.advanceTimersByTimeAsync(50);
    expect(stopped, "a run is in progress").toBe(false);
    release();
    await vi.advanceTimersByTimeAsync(0);
    expect(finished && stopped).toBe(true);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(run).toHaveBeenCalledTimes(1);
  });

  it("logs a failed run and goes on", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const run = vi.fn().mockRejectedValueOnce(new Error("database down")).mockResolvedValue(undefined);
    const stop = startPeriodicTasks([{ label: "housekeeping", intervalMs: 100, run }]);
    await vi.advanceTimersByTimeAsync(100);
    expect(errors).toHaveBeenCalledWith("[sieve] housekeeping failed:", "database down");
    expect(run).toHaveBeenCalledTimes(2);
    await stop();
    errors.mockRestore();
  });
});
