import { singletonGetter } from "@/lib/core/singleton";
import { sqlPool } from "@/lib/db/client";
import { withTransaction } from "@/lib/db/transaction";
import { kickOutbox } from "@/lib/jobs/outbox";
import { handOffDeliveries } from "../delivery-jobs";
import { storeDispatched, type UnsavedDelivery } from "./passes";
import { attemptDelivery, startWebhookFirstAttempt, type AttemptOutcome, type FirstAttemptListener } from "./attempt";
import { flushSuccesses, unrecordedSuccesses } from "./batched";
import { unchangedSince } from "./connector-changes";
import type { StampedConnector } from "./dispatch-connectors";
import type { StoredEvent } from "./envelope";
import { pendingDelivery } from "./load";

/**
 * First attempts, in the dispatching process. A delivery's first attempt is made right after the
 * dispatcher commits it, here, instead of through a job-runner run of its own: a run costs several
 * database writes and a call of our serve endpoint, which would cap delivery near 100 events/s
 * (bench/events.ts). Only a delivery that needs more (its first attempt failed) is handed to the
 * Inngest function `deliver-to-connector`, which owns every later attempt, the retry schedule and the
 * disable rule, and picks up the first attempt's recorded outcome (attempts are idempotent through
 * the database); a failure is handed off in the transaction that records it (attempt.ts,
 * AttemptOptions.fromLane). Nothing is lost in a crash: the sweep (queueLostDeliveries) hands
 * deliveries never attempted, or left pending and never handed off, after a minute to the job runner.
 *
 * Per connector (a lane) at most FIRST_ATTEMPTS_PER_CONNECTOR attempts run at once; a delivery that
 * waits MAX_WAIT_MS for its turn (a slow or hanging endpoint) goes to the job runner instead, where
 * the function's own concurrency limits apply. A lane with waiting deliveries keeps a timer for the
 * oldest one's deadline, so they move on even when no slot ever frees.
 */
export const FIRST_ATTEMPTS_PER_CONNECTOR = 8;
export const MAX_WAIT_MS = 20_000;
/**
 * How many deliveries may wait in flowing lanes before the dispatcher reads more (readAheadRoom):
 * reading a burst of thousands up front keeps every delivery's event in memory until its turn,
 * which cost the server ~12 % more CPU per delivery in garbage collection (bench/events.ts).
 */
export const READ_AHEAD = 1000;
/** A lane whose oldest delivery has waited this long is stalled: it no longer holds the dispatcher back. */
export const STALLED_AFTER_MS = 1000;
/**
 * A delivery as the dispatcher read it, its row not written yet (the attempt writes it: passes.ts):
 * with the event and connector an attempt needs, the connector as read with the connector-changes
 * stamp taken before that read. An attempt uses them while the connector is unchanged since
 * (connector-changes.ts: enabled, target, secrets, subscriptions, failure run are announced by the
 * database) and no attempt of its lane failed; otherwise it reads the delivery again (batched.ts).
 * A success frees its slot when the response is in, and is recorded in a batch with others; a
 * failure keeps its slot until it is recorded and handed off. One object per delivery from the
 * pass to its record, sharing its pass and its connector's read with the others: a burst keeps
 * about READ_AHEAD of them waiting, and what they hold is what the server's scavenges copy.
 */
export interface DispatchedDelivery extends UnsavedDelivery {
  /** Shared by the connector's deliveries; null when the connector was gone at dispatch. */
  connector: StampedConnector | null;
  /** Its envelope as the pass read it (null without a connector); released once a success is sent. */
  event: StoredEvent | null;
  /** When it joined its lane's queue (performance.now()). */
  since: number;
}

interface Lane {
  running: number;
  /** A pump is due (refillSoon) for the slots freed in this turn of the event loop. */
  pumpScheduled: boolean;
  /** Oldest first (`since` never decreases). */
  waiting: DispatchedDelivery[];
  /** Armed while deliveries wait: fires at the oldest one's deadline (or earlier; it re-arms). */
  timer?: NodeJS.Timeout;
  /** An attempt failed: later attempts load their delivery afresh. */
  failed: boolean;
}

const lanes = singletonGetter("connectorFirstAttempts", () => new Map<string, Lane>());
/** Set by drainFirstAttempts (shutdown): lanes start no more attempts. */
const drain = singletonGetter("connectorFirstAttemptsDrain", () => ({ draining: false }));
const DRAIN_POLL_MS = 10;

/** Starts the first attempts of freshly dispatched deliveries (does not wait for them). */
export function startFirstAttempts(deliveries: readonly DispatchedDelivery[]): void {
  const now = performance.now();
  const touched = new Set<string>();
  for (const delivery of deliveries) {
    let lane = lanes().get(delivery.connectorId);
    if (!lane) lanes().set(delivery.connectorId, (lane = { running: 0, pumpScheduled: false, waiting: [], failed: false }));
    delivery.since = now;
    lane.waiting.push(delivery);
    touched.add(delivery.connectorId);
  }
  for (const connectorId of touched) pump(connectorId);
}

/**
 * Whether the dispatcher may read more events: fewer than READ_AHEAD deliveries wait in lanes that
 * flow. A stalled lane (a slow or hanging endpoint: its oldest delivery has waited STALLED_AFTER_MS)
 * does not count, so one connector's backlog never delays the others' deliveries; its own waiting
 * deliveries go to the job runner after MAX_WAIT_MS.
 */
export function readAheadRoom(): boolean {
  const now = performance.now();
  let waiting = 0;
  for (const lane of lanes().values()) {
    const oldest = lane.waiting[0];
    if (oldest && now - oldest.since < STALLED_AFTER_MS) waiting += lane.waiting.length;
  }
  return waiting < READ_AHEAD;
}

/** Hands overdue deliveries off, starts attempts in free slots, and keeps the lane's timer right. */
function pump(connectorId: string): void {
  const lane = lanes().get(connectorId);
  if (!lane) return;
  const now = performance.now();
  let overdue = 0;
  while (overdue < lane.waiting.length && now - lane.waiting[overdue]!.since >= MAX_WAIT_MS) overdue++;
  if (overdue > 0) void handOff(lane.waiting.splice(0, overdue));
  if (!drain().draining) while (lane.running < FIRST_ATTEMPTS_PER_CONNECTOR && lane.waiting.length > 0) start(connectorId, lane, lane.waiting.shift()!);

  const oldest = lane.waiting[0];
  if (!oldest) {
    clearTimeout(lane.timer);
    lane.timer = undefined;
    if (lane.running === 0) lanes().delete(connectorId);
  } else if (!lane.timer) {
    lane.timer = setTimeout(() => {
      lane.timer = undefined;
      pump(connectorId);
    }, oldest.since + MAX_WAIT_MS - now);
    lane.timer.unref();
  }
}

/**
 * Shutdown: lanes start no more attempts, the successes waiting for their batch are recorded at
 * once, and the attempts in flight are awaited until their outcomes are recorded, for at most
 * `timeoutMs` (a hanging endpoint does not hold the shutdown for the request's whole timeout). A
 * delivery not started stays with its pass, and the sweep writes and sends it after the next start,
 * as after a crash; so does one still in flight when the time is up (the receiver may then get it
 * twice, with the same webhook-id). Returns how many were still in flight or unrecorded.
 */
export async function drainFirstAttempts(timeoutMs: number): Promise<number> {
  drain().draining = true;
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    flushSuccesses(); // a success frees its slot before its record
    let unfinished = unrecordedSuccesses();
    for (const lane of lanes().values()) unfinished += lane.running;
    if (unfinished === 0 || performance.now() >= deadline) return unfinished;
    await new Promise((resolve) => setTimeout(resolve, DRAIN_POLL_MS)); // the global timer, which tests fake
  }
}

/** Lets lanes start attempts again after a drain (the dispatcher's start). */
export function resumeFirstAttempts(): void {
  drain().draining = false;
  for (const connectorId of [...lanes().keys()]) pump(connectorId);
}

/**
 * Refills the slots an attempt frees once per turn of the event loop, after its I/O: an attempt
 * frees its slot inside the parsing of its response, and starting the next request there costs the
 * server ~7 % more CPU per delivery (bench/events.ts, rounds of 6000 events) than writing the turn's new
 * requests together afterwards.
 */
function refillSoon(connectorId: string, lane: Lane): void {
  if (lane.pumpScheduled) return;
  lane.pumpScheduled = true;
  setImmediate(() => {
    lane.pumpScheduled = false;
    pump(connectorId);
  });
}

/**
 * One first attempt, its slot freed once (a class, not closures per attempt: this runs per delivery).
 * A delivery that needs more is handed off before its slot frees. A failure of the database means
 * the sweep hands the delivery to the job runner later.
 */
class FirstAttempt implements FirstAttemptListener {
  freed = false;
  constructor(
    readonly connectorId: string,
    readonly lane: Lane,
    readonly delivery: DispatchedDelivery,
  ) {}

  free(): void {
    if (this.freed) return;
    this.freed = true;
    this.lane.running--;
    refillSoon(this.connectorId, this.lane);
  }

  sent(): void {
    this.delivery.event = null; // not needed any more while the success waits for its record
    this.free();
  }

  settled(outcome: Pick<AttemptOutcome, "status" | "done" | "queued">): void {
    if (outcome.status !== "succeeded") this.lane.failed = true;
    if (outcome.done || outcome.queued) this.free();
    else void handOff([this.delivery]).finally(() => this.free());
  }

  failed(error: unknown): void {
    this.lane.failed = true;
    console.error(`[sieve] connector delivery ${this.delivery.deliveryId}: first attempt failed: ${(error as Error).message}`);
    this.free();
  }
}

/**
 * Starts the attempt of `next`: by startWebhookFirstAttempt when the dispatcher's read of it is
 * still current (nothing of its connector changed since, and no attempt of its lane failed), else
 * by attemptDelivery (which reads it afresh when needed).
 */
function start(connectorId: string, lane: Lane, next: DispatchedDelivery): void {
  lane.running++;
  const attempt = new FirstAttempt(connectorId, lane, next);
  const read = next.connector;
  const current = read !== null && next.event !== null && !lane.failed && unchangedSince(connectorId, read.stamp);
  const preloaded = current ? pendingDelivery(read.read, next.event, next) : undefined;
  if (preloaded && startWebhookFirstAttempt(next.deliveryId, preloaded, attempt)) return;
  // Anything else reads or updates the delivery's row: it is written first.
  storeDispatched([next])
    .then(() => attemptDelivery(next.deliveryId, 1, { listener: attempt, fromLane: true, preloaded }))
    .then(
      (outcome) => attempt.settled(outcome),
      (error: unknown) => attempt.failed(error),
    );
}

/**
 * Queues deliveries for the job runner. The outbox relay is kicked, not awaited: its send to the
 * job runner (retried while it fails) must not hold a lane's slot.
 */
async function handOff(deliveries: readonly DispatchedDelivery[]): Promise<void> {
  try {
    await storeDispatched(deliveries);
    await withTransaction(sqlPool(), (client) => handOffDeliveries(client, deliveries));
    void kickOutbox();
  } catch (error) {
    console.error(`[sieve] connector deliveries could not be queued (the sweep retries): ${(error as Error).message}`);
  }
}
