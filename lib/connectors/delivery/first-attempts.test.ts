import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ConnectorDeliveryData } from "../delivery-jobs";
import type { AttemptOptions, AttemptOutcome, FirstAttemptListener } from "./attempt";
import type { DispatchConnector } from "./dispatch-connectors";
import type { LoadedDelivery } from "./load";
import type { StoredEvent } from "./envelope";
import type { DispatchedDelivery } from "./first-attempts";
import type { UnsavedDelivery } from "./passes";

/**
 * The in-process first attempts' lanes, without a database: attempts, loads, hand-offs and the
 * outbox are stubbed. What is checked is liveness: a delivery waiting for a slot of a lane whose
 * attempts all hang goes to the job runner by its deadline on its own, and a hand-off never holds a
 * slot while the outbox relay sends.
 */
const attemptDelivery = vi.fn<(deliveryId: string, attempt: number, options?: AttemptOptions) => Promise<AttemptOutcome>>();
const handOffDeliveries = vi.fn<(runner: unknown, deliveries: readonly ConnectorDeliveryData[]) => Promise<void>>();
const kickOutbox = vi.fn<() => Promise<void>>();
const storeDispatched = vi.fn<(deliveries: readonly (UnsavedDelivery | null | undefined)[]) => Promise<void>>();

const startWebhookFirstAttempt = vi.fn<(deliveryId: string, loaded: unknown, listener: FirstAttemptListener) => boolean>();
vi.mock("./attempt", () => ({
  attemptDelivery: (...args: Parameters<typeof attemptDelivery>) => attemptDelivery(...args),
  startWebhookFirstAttempt: (...args: Parameters<typeof startWebhookFirstAttempt>) => startWebhookFirstAttempt(...args),
}));
vi.mock("./connector-changes", () => ({ unchangedSince: () => true }));
const flushSuccesses = vi.fn<() => void>();
/** Successes whose record is not written yet, as the batcher would count them. */
let unrecorded = 0;
vi.mock("./batched", () => ({ loadFirstAttempt: async () => null, flushSuccesses: () => flushSuccesses(), unrecordedSuccesses: () => unrecorded }));
vi.mock("../delivery-jobs", () => ({ handOffDeliveries: (...args: Parameters<typeof handOffDeliveries>) => handOffDeliveries(...args) }));
vi.mock("@/lib/jobs/outbox", () => ({ kickOutbox: () => kickOutbox() }));
vi.mock("./passes", () => ({ storeDispatched: (...args: Parameters<typeof storeDispatched>) => storeDispatched(...args) }));
vi.mock("@/lib/db/client", () => ({ sqlPool: () => ({}) }));
vi.mock("@/lib/db/transaction", () => ({ withTransaction: (_pool: unknown, fn: (client: unknown) => Promise<unknown>) => fn({}) }));

const { FIRST_ATTEMPTS_PER_CONNECTOR, MAX_WAIT_MS, READ_AHEAD, STALLED_AFTER_MS, drainFirstAttempts, readAheadRoom, resumeFirstAttempts, startFirstAttempts } =
  await import("./first-attempts");

const never = () => new Promise<never>(() => undefined);
let lane = 0;
/** `count` deliveries of a connector of their own. */
function deliveries(count: number, connectorId = `connector-${++lane}`): DispatchedDelivery[] {
  const pass = { id: "1", createdMs: 0 };
  return Array.from({ length: count }, (_, i) => ({
    deliveryId: `${connectorId}-d${i}`,
    connectorId,
    eventId: `event-${i}`,
    pass,
    stored: false,
    connector: null,
    event: null,
    since: 0,
  }));
}
/** Deliveries whose rows were written (storeDispatched) before anything else was done with them. */
const stored = () => storeDispatched.mock.calls.flatMap(([list]) => list.map((d) => d!.deliveryId));
const handedOff = () => handOffDeliveries.mock.calls.flatMap(([, list]) => list.map((d) => d.deliveryId));

beforeEach(() => {
  vi.useFakeTimers();
  attemptDelivery.mockReset();
  startWebhookFirstAttempt.mockReset().mockReturnValue(false);
  handOffDeliveries.mockReset().mockResolvedValue(undefined);
  kickOutbox.mockReset().mockResolvedValue(undefined);
  storeDispatched.mockReset().mockResolvedValue(undefined);
  flushSuccesses.mockReset();
  unrecorded = 0;
});

afterEach(() => {
  vi.useRealTimers();
});

const succeeded = (deliveryId: string, attempt: number): AttemptOutcome => ({
  deliveryId,
  attempt,
  status: "succeeded",
  done: true,
  statusCode: 200,
  error: null,
  nextAttemptAt: null,
  sent: true,
  queued: false,
});

// First in the file: the lanes are the process's, and later tests leave attempts hanging in theirs.
describe("draining at shutdown", () => {
  it("starts nothing more, records the waiting successes at once, and resolves once the attempts in flight are recorded", async () => {
    const releases: (() => void)[] = [];
    attemptDelivery.mockImplementation((deliveryId, attempt) => new Promise((resolve) => releases.push(() => resolve(succeeded(deliveryId, attempt)))));
    startFirstAttempts(deliveries(FIRST_ATTEMPTS_PER_CONNECTOR + 2));
    await vi.advanceTimersByTimeAsync(0);
    expect(attemptDelivery).toHaveBeenCalledTimes(FIRST_ATTEMPTS_PER_CONNECTOR);

    unrecorded = 3; // successes waiting for their batch
    let unfinished: number | undefined;
    void drainFirstAttempts(1_000).then((n) => (unfinished = n));
    expect(flushSuccesses, "the waiting successes are written without gathering more").toHaveBeenCalled();
    releases.splice(0).forEach((release) => release());
    await vi.advanceTimersByTimeAsync(50);
    expect(attemptDelivery, "the freed slots started no waiting delivery").toHaveBeenCalledTimes(FIRST_ATTEMPTS_PER_CONNECTOR);
    expect(unfinished, "still waiting for the successes' records").toBeUndefined();

    unrecorded = 0;
    await vi.advanceTimersByTimeAsync(20);
    expect(unfinished).toBe(0);

    // The dispatcher's next start lets the lanes go on: the two left waiting start.
    resumeFirstAttempts();
    await vi.advanceTimersByTimeAsync(0);
    expect(attemptDelivery).toHaveBeenCalledTimes(FIRST_ATTEMPTS_PER_CONNECTOR + 2);
    releases.splice(0).forEach((release) => release());
    await vi.advanceTimersByTimeAsync(0);
  });

  it("gives up when its time is up, and says how many were unfinished", async () => {
    attemptDelivery.mockImplementation(never);
    startFirstAttempts(deliveries(3));
    await vi.advanceTimersByTimeAsync(0);
    let unfinished: number | undefined;
    void drainFirstAttempts(1_000).then((n) => (unfinished = n));
    await vi.advanceTimersByTimeAsync(990);
    expect(unfinished).toBeUndefined();
    await vi.advanceTimersByTimeAsync(30);
    expect(unfinished).toBe(3);
    resumeFirstAttempts();
  });
});

describe("first attempts", () => {
  it("hands a delivery waiting behind hanging attempts to the job runner by its deadline, without a slot freeing", async () => {
    attemptDelivery.mockImplementation(never);
    const first = deliveries(FIRST_ATTEMPTS_PER_CONNECTOR + 1);
    startFirstAttempts(first);
    await vi.advanceTimersByTimeAsync(0); // each row is written first
    expect(stored()).toEqual(first.slice(0, FIRST_ATTEMPTS_PER_CONNECTOR).map((d) => d.deliveryId));
    expect(attemptDelivery).toHaveBeenCalledTimes(FIRST_ATTEMPTS_PER_CONNECTOR);

    // A later delivery of the same lane waits too, with a deadline of its own.
    await vi.advanceTimersByTimeAsync(5_000);
    const later = deliveries(1, first[0]!.connectorId).map((d) => ({ ...d, deliveryId: `${d.deliveryId}-later` }));
    startFirstAttempts(later);

    await vi.advanceTimersByTimeAsync(MAX_WAIT_MS - 5_000 - 10);
    expect(handedOff()).toEqual([]);
    await vi.advanceTimersByTimeAsync(20);
    expect(handedOff()).toEqual([first.at(-1)!.deliveryId]);
    expect(stored()).toContain(first.at(-1)!.deliveryId); // its row written before the hand-off
    expect(kickOutbox).toHaveBeenCalled();

    await vi.advanceTimersByTimeAsync(5_000);
    expect(handedOff()).toEqual([first.at(-1)!.deliveryId, later[0]!.deliveryId]);
    expect(attemptDelivery).toHaveBeenCalledTimes(FIRST_ATTEMPTS_PER_CONNECTOR);
    expect(vi.getTimerCount()).toBe(0); // nothing waits: no timer is left armed
  });

  it("starts a waiting delivery when a slot frees before its deadline, and does not hand it off", async () => {
    const releases: (() => void)[] = [];
    attemptDelivery.mockImplementation((deliveryId, attempt) => new Promise((resolve) => releases.push(() => resolve(succeeded(deliveryId, attempt)))));
    startFirstAttempts(deliveries(FIRST_ATTEMPTS_PER_CONNECTOR + 1));
    await vi.advanceTimersByTimeAsync(1_000);
    releases[0]!();
    await vi.advanceTimersByTimeAsync(0);
    expect(attemptDelivery).toHaveBeenCalledTimes(FIRST_ATTEMPTS_PER_CONNECTOR + 1);
    await vi.advanceTimersByTimeAsync(MAX_WAIT_MS * 2);
    expect(handedOff()).toEqual([]);
  });

  it("runs current deliveries through the hot path: a slot frees on sent(), a failure's once it is handed off", async () => {
    const listeners: FirstAttemptListener[] = [];
    attemptDelivery.mockImplementation(never);
    startWebhookFirstAttempt.mockImplementation((_id, _loaded, listener) => (listeners.push(listener), true));
    const all = deliveries(FIRST_ATTEMPTS_PER_CONNECTOR + 2).map((d) => ({ ...d, connector: { read: {} as DispatchConnector, stamp: 1 }, event: {} as StoredEvent }));
    startFirstAttempts(all);
    expect(listeners).toHaveLength(FIRST_ATTEMPTS_PER_CONNECTOR);
    // Attempted as the dispatcher read it: pending, never attempted, with its event, its row not written.
    const [deliveryId, loaded] = startWebhookFirstAttempt.mock.calls[0]! as [string, LoadedDelivery, unknown];
    expect(deliveryId).toBe(all[0]!.deliveryId);
    expect(loaded).toMatchObject({ status: "pending", attempts: 0, recordedAttempt: null });
    expect(loaded.event).toBe(all[0]!.event);
    expect(loaded.unsaved).toBe(all[0]);
    expect(attemptDelivery).not.toHaveBeenCalled();
    expect(storeDispatched).not.toHaveBeenCalled(); // the hot path writes a success's row once, with its outcome

    listeners[0]!.sent();
    listeners[0]!.settled({ status: "succeeded", done: true, queued: false }); // its record, later: the slot is not freed twice
    expect(listeners).toHaveLength(FIRST_ATTEMPTS_PER_CONNECTOR); // freed slots are refilled after this turn's I/O
    await vi.advanceTimersByTimeAsync(1);
    expect(listeners).toHaveLength(FIRST_ATTEMPTS_PER_CONNECTOR + 1);

    listeners[1]!.settled({ status: "pending", done: false, queued: false }); // a failure its record did not hand off: handed off, then freed
    expect(listeners).toHaveLength(FIRST_ATTEMPTS_PER_CONNECTOR + 1);
    await vi.advanceTimersByTimeAsync(0);
    expect(handedOff()).toEqual([all[1]!.deliveryId]);
    // The lane saw a failure: the last delivery is read afresh (attemptDelivery), not sent as dispatched,
    // and its failure is to be handed off with its record.
    expect(attemptDelivery).toHaveBeenCalledTimes(1);
    expect(attemptDelivery.mock.calls[0]![0]).toBe(all.at(-1)!.deliveryId);
    expect(attemptDelivery.mock.calls[0]![2]).toMatchObject({ fromLane: true });

    listeners[2]!.settled({ status: "pending", done: false, queued: true }); // handed off with its record: not again
    await vi.advanceTimersByTimeAsync(1);
    expect(handedOff()).toEqual([all[1]!.deliveryId]);
  });

  it("frees a failed attempt's slot once the hand-off is committed, not when the outbox relay is done sending", async () => {
    kickOutbox.mockImplementation(never); // the relay's send to the job runner hangs
    attemptDelivery.mockImplementation(async (deliveryId, attempt) => ({
      deliveryId,
      attempt,
      status: "pending",
      done: false,
      statusCode: 500,
      error: "HTTP 500",
      nextAttemptAt: Date.now() + 5_000,
      sent: true,
      queued: false, // e.g. recorded by another call, read back pending: the lane hands it off
    }));
    const all = deliveries(FIRST_ATTEMPTS_PER_CONNECTOR * 3);
    startFirstAttempts(all);
    // Three lane-fulls: each refill comes a turn of the event loop after the slots it fills freed (a
    // turn is 1 ms here: the fake clock runs an immediate queued at its current time only once it moves).
    for (let turn = 0; turn < 3; turn++) await vi.advanceTimersByTimeAsync(1);
    expect(attemptDelivery).toHaveBeenCalledTimes(all.length);
    expect(new Set(handedOff())).toEqual(new Set(all.map((d) => d.deliveryId)));
  });

  it("has room for the dispatcher's next pass while fewer than READ_AHEAD deliveries wait in flowing lanes; a stalled lane does not count", async () => {
    attemptDelivery.mockImplementation(never); // the endpoints hang: every slot stays taken
    expect(readAheadRoom()).toBe(true);
    startFirstAttempts(deliveries(FIRST_ATTEMPTS_PER_CONNECTOR + READ_AHEAD - 1));
    expect(readAheadRoom()).toBe(true);
    startFirstAttempts(deliveries(FIRST_ATTEMPTS_PER_CONNECTOR + 1)); // another connector's: one more waits
    expect(readAheadRoom()).toBe(false);
    await vi.advanceTimersByTimeAsync(STALLED_AFTER_MS);
    // Nothing moved for a second: both lanes are stalled, and other connectors' events are read on.
    expect(readAheadRoom()).toBe(true);
    await vi.advanceTimersByTimeAsync(MAX_WAIT_MS); // the waiting deliveries go to the job runner
    expect(handedOff()).toHaveLength(READ_AHEAD);
  });
});
