import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { QueuedSuccess } from "./batched";
import type { SavedAttempt, SuccessInput } from "./store";

/**
 * The batches of success records, without a database (store.ts stubbed): a batch waits to gather
 * (GATHER_MIN successes or GATHER_MS after the first), one runs at a time, each success hears its own outcome,
 * and a batch that fails as a whole is recorded one by one.
 */
const recordSuccesses = vi.fn<(db: unknown, inputs: readonly SuccessInput[]) => Promise<SavedAttempt[]>>();
const recordSuccess = vi.fn<(db: unknown, record: SuccessInput, lastSuccessAt: Date | null) => Promise<SavedAttempt>>();

vi.mock("./store", () => ({
  recordSuccesses: (...args: Parameters<typeof recordSuccesses>) => recordSuccesses(...args),
  recordSuccess: (...args: Parameters<typeof recordSuccess>) => recordSuccess(...args),
}));
vi.mock("./load", () => ({ loadDeliveries: vi.fn() }));
vi.mock("@/lib/db/client", () => ({ sqlPool: () => ({}) }));

const { GATHER_MIN, GATHER_MS, flushSuccesses, queueSuccess, unrecordedSuccesses } = await import("./batched");

const SUCCEEDED = { status: "succeeded", nextAttemptAt: null } as const;
let next = 0;

function success(): QueuedSuccess & { outcome?: SavedAttempt; failure?: unknown } {
  const s: QueuedSuccess & { outcome?: SavedAttempt; failure?: unknown } = {
    deliveryId: `delivery-${++next}`,
    connectorId: "connector-1",
    attempt: 1,
    startedMs: Date.now(),
    latencyMs: 3,
    statusCode: 200,
    error: null,
    responseExcerpt: "ok",
    lastSuccessAt: null,
    recorded: (saved) => void (s.outcome = saved),
    recordFailed: (error) => void (s.failure = error),
  };
  return s;
}

beforeEach(() => {
  vi.useFakeTimers();
  recordSuccesses.mockReset().mockImplementation(async (_db, inputs) => inputs.map(() => SUCCEEDED));
  recordSuccess.mockReset().mockResolvedValue(SUCCEEDED);
});

afterEach(() => {
  vi.useRealTimers();
});

describe("success records", () => {
  it("gathers a few successes for GATHER_MS, then records them in one statement", async () => {
    const some = Array.from({ length: 5 }, success);
    some.forEach((s) => queueSuccess(s));
    await vi.advanceTimersByTimeAsync(GATHER_MS - 1);
    expect(recordSuccesses).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(recordSuccesses).toHaveBeenCalledTimes(1);
    expect(recordSuccesses.mock.calls[0]![1].map((i) => i.deliveryId)).toEqual(some.map((s) => s.deliveryId));
    expect(some.every((s) => s.outcome === SUCCEEDED)).toBe(true);
  });

  it("starts at once with GATHER_MIN waiting, and gathers the next batch while one runs", async () => {
    let release: () => void = () => undefined;
    recordSuccesses.mockImplementationOnce(async (_db, inputs) => {
      await new Promise<void>((resolve) => (release = resolve));
      return inputs.map(() => SUCCEEDED);
    });
    const first = Array.from({ length: GATHER_MIN }, success);
    first.forEach((s) => queueSuccess(s));
    await vi.advanceTimersByTimeAsync(0);
    expect(recordSuccesses).toHaveBeenCalledTimes(1);

    const second = Array.from({ length: 100 }, success);
    second.forEach((s) => queueSuccess(s));
    await vi.advanceTimersByTimeAsync(GATHER_MS * 5);
    expect(recordSuccesses).toHaveBeenCalledTimes(1); // one batch at a time
    release();
    await vi.advanceTimersByTimeAsync(0);
    expect(recordSuccesses).toHaveBeenCalledTimes(2);
    expect(recordSuccesses.mock.calls[1]![1]).toHaveLength(100);
    expect([...first, ...second].every((s) => s.outcome === SUCCEEDED)).toBe(true);
  });

  it("writes the waiting successes at once when flushed (shutdown), and counts them until they are recorded", async () => {
    let release: () => void = () => undefined;
    recordSuccesses.mockImplementationOnce(async (_db, inputs) => {
      await new Promise<void>((resolve) => (release = resolve));
      return inputs.map(() => SUCCEEDED);
    });
    const some = Array.from({ length: 4 }, success);
    some.forEach((s) => queueSuccess(s));
    expect(unrecordedSuccesses()).toBe(4);
    flushSuccesses();
    await vi.advanceTimersByTimeAsync(0);
    expect(recordSuccesses, "no wait to gather more").toHaveBeenCalledTimes(1);
    expect(unrecordedSuccesses(), "the batch being written still counts").toBe(4);
    release();
    await vi.advanceTimersByTimeAsync(0);
    expect(unrecordedSuccesses()).toBe(0);
    expect(some.every((s) => s.outcome === SUCCEEDED)).toBe(true);
  });

  it("records one by one when the batch fails as a whole, each success hearing its own outcome", async () => {
    recordSuccesses.mockRejectedValueOnce(Object.assign(new Error("deadlock detected"), { code: "40P01" }));
    recordSuccess.mockResolvedValueOnce(SUCCEEDED).mockResolvedValueOnce(null).mockRejectedValueOnce(new Error("connection lost"));
    const three = Array.from({ length: 3 }, success);
    three.forEach((s) => queueSuccess(s));
    await vi.advanceTimersByTimeAsync(GATHER_MS);
    expect(recordSuccess).toHaveBeenCalledTimes(3);
    expect(three.map((s) => [s.outcome, (s.failure as Error | undefined)?.message])).toEqual([
      [SUCCEEDED, undefined],
      [null, undefined],
      [undefined, "connection lost"],
    ]);
  });
});
