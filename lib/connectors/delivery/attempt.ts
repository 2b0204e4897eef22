import { config } from "@/lib/core/config";
import { sqlPool } from "@/lib/db/client";
import { Rollback, withTransaction } from "@/lib/db/transaction";
import { recordEvents } from "@/lib/events/record";
import { loadFirstAttempt, recordSuccessBatched } from "./batched";
import { eventEnvelope } from "./envelope";
import { connectorFailingEvent, failureRun } from "./failing";
import { isGone, retryDelayMs } from "./schedule";
import { timedSend, type TimedSendResult } from "./send";
import {
  cancelDelivery,
  cancelPendingDeliveries,
  lockConnectorFailures,
  recordAttempt,
  recordSuccess,
  updateConnectorFailure,
  type DeliveryStatus,
} from "./store";
import { loadDelivery, type LoadedDelivery } from "./load";

/**
 * One attempt of one delivery: `attemptDelivery(deliveryId, n)`. Idempotent through the database:
 * an attempt number is recorded once (unique (delivery, attempt)), so calling it again — a replayed
 * function body, a retried step — returns the recorded outcome without sending again. A delivery
 * that is finished is not attempted; one whose connector is off (or no longer subscribes to the
 * event's type) is cancelled. Throws only when the database fails (the job runner retries then).
 *
 * A success of a connector without a failure run is one statement that holds the delivery's row
 * only (attempt row, delivery), plus, every few seconds, a single-row update of the connector's
 * `last_success_at` in its own transaction (store.ts: RECORD_SUCCESSES, TOUCH_CONNECTOR_SUCCESS), so
 * concurrent successes of one connector do not queue on its row lock. The first success after
 * failures is one statement under the connector's row lock (attempt row, delivery, failure run
 * reset). A failure is one transaction under the connector's row lock: the failure run grows, and
 * when the disable rule holds (failing.ts) the connector is turned off, `connector.failing` is
 * recorded and its other pending deliveries are cancelled, all at once.
 */
export interface AttemptOutcome {
  deliveryId: string;
  attempt: number;
  /** The delivery's status after this attempt. */
  status: DeliveryStatus;
  /** No further attempt: succeeded, failed or cancelled. */
  done: boolean;
  statusCode: number | null;
  error: string | null;
  /** When the next attempt is due (ms since the epoch) while the delivery is pending. */
  nextAttemptAt: number | null;
  /** False when this call sent nothing (the attempt was recorded before, or the delivery had ended). */
  sent: boolean;
}

const CONNECTOR_OFF = "cancelled: the connector is turned off";

export interface AttemptOptions {
  /**
   * Called once a successful request to the endpoint is over, before its outcome is recorded: a
   * caller that limits requests in flight frees its slot there. Not called when nothing was sent or
   * the request failed (a failure is recorded, and may turn the connector off, before the caller's
   * next attempt starts).
   */
  onSent?: () => void;
  /** Load and record (a success) in batches with concurrent first attempts (batched.ts). */
  batched?: boolean;
  /** Attempt 1 as the dispatcher read it, still current (first-attempts.ts): used instead of loading it. */
  preloaded?: LoadedDelivery;
}

export async function attemptDelivery(deliveryId: string, attempt: number, options: AttemptOptions = {}): Promise<AttemptOutcome> {
  const pool = sqlPool();
  const batched = options.batched === true && attempt === 1;
  const loaded = batched
    ? (options.preloaded ?? (await loadFirstAttempt(deliveryId)))
    : await loadDelivery(pool, deliveryId, attempt);
  if (!loaded) return ended(deliveryId, attempt, "the delivery or its connector was deleted");
  if (loaded.recordedAttempt || loaded.status !== "pending") return recordedOutcome(deliveryId, attempt, loaded);

  const { connector, event } = loaded;
  const cancelReason = !event
    ? "cancelled: the delivery has no event"
    : !connector.enabled
      ? CONNECTOR_OFF
      : connector.eventTypes.length > 0 && !connector.eventTypes.includes(event.type)
        ? `cancelled: the connector no longer subscribes to ${event.type}`
        : null;
  if (cancelReason !== null || !event) {
    await cancelDelivery(pool, deliveryId, cancelReason ?? CONNECTOR_OFF);
    return reload(deliveryId, attempt);
  }

  const settings = config().connectors;
  const result = await timedSend(connector, eventEnvelope(event), settings.timeoutMs);
  if (result.ok) {
    options.onSent?.();
    const fields = attemptFields(deliveryId, connector.id, attempt, result);
    const { failing, lastSuccessAt } = loaded.connectorHealth;
    const saved = failing
      ? await recordAttempt(pool, { ...fields, status: "succeeded", retryDelayMs: null, resetConnector: true })
      : batched
        ? await recordSuccessBatched(fields, lastSuccessAt)
        : await recordSuccess(pool, fields, lastSuccessAt);
    return saved ? sentOutcome(deliveryId, attempt, result, saved) : reload(deliveryId, attempt);
  }
  return recordFailure(loaded, deliveryId, attempt, result);
}

async function recordFailure(loaded: LoadedDelivery, deliveryId: string, attempt: number, result: TimedSendResult): Promise<AttemptOutcome> {
  const settings = config().connectors;
  const { connector } = loaded;
  const saved = await withTransaction(sqlPool(), async (client) => {
    const locked = await lockConnectorFailures(client, connector.id);
    if (!locked) throw new Rollback(null); // the connector was deleted meanwhile
    const gone = isGone(result.statusCode);
    const run = failureRun(locked, gone, settings);
    const delay = retryDelayMs(settings.retryScheduleMs, attempt);
    const final = gone || run.disableReason !== null || delay === null;
    const recorded = await recordAttempt(client, {
      ...attemptFields(deliveryId, connector.id, attempt, result),
      status: final ? "failed" : "pending",
      retryDelayMs: final ? null : delay,
      resetConnector: false,
    });
    if (!recorded) throw new Rollback(null); // recorded by another call: count the failure once
    await updateConnectorFailure(client, connector.id, { ...run, lastError: result.error });
    if (run.disableReason !== null) {
      await recordEvents(client, [connectorFailingEvent(connector, run, result.error)]);
      await cancelPendingDeliveries(client, connector.id, deliveryId, CONNECTOR_OFF);
    }
    return { recorded, disableReason: run.disableReason };
  });
  if (!saved) return reload(deliveryId, attempt);
  if (saved.disableReason !== null) {
    console.warn(`[sieve] connector ${connector.id} ("${connector.name}") turned off: ${saved.disableReason} Last error: ${result.error}`);
  }
  return sentOutcome(deliveryId, attempt, result, saved.recorded);
}

function attemptFields(deliveryId: string, connectorId: string, attempt: number, result: TimedSendResult) {
  return {
    deliveryId,
    connectorId,
    attempt,
    startedAt: result.startedAt,
    latencyMs: result.latencyMs,
    statusCode: result.statusCode,
    error: result.error,
    responseExcerpt: result.responseExcerpt,
  };
}

function sentOutcome(
  deliveryId: string,
  attempt: number,
  result: TimedSendResult,
  saved: { status: DeliveryStatus; nextAttemptAt: Date | null },
): AttemptOutcome {
  return {
    deliveryId,
    attempt,
    status: saved.status,
    done: saved.status !== "pending",
    statusCode: result.statusCode,
    error: result.error,
    nextAttemptAt: saved.status === "pending" ? (saved.nextAttemptAt?.getTime() ?? Date.now()) : null,
    sent: true,
  };
}

/** The outcome as the database has it: attempt `attempt` as recorded, or the delivery's end. */
function recordedOutcome(deliveryId: string, attempt: number, loaded: LoadedDelivery): AttemptOutcome {
  const recorded = loaded.recordedAttempt;
  const pending = loaded.status === "pending";
  return {
    deliveryId,
    attempt,
    status: loaded.status,
    done: !pending,
    statusCode: recorded ? recorded.statusCode : loaded.lastStatusCode,
    error: recorded ? recorded.error : loaded.lastError,
    nextAttemptAt: pending ? (loaded.nextAttemptAt?.getTime() ?? Date.now()) : null,
    sent: false,
  };
}

async function reload(deliveryId: string, attempt: number): Promise<AttemptOutcome> {
  const loaded = await loadDelivery(sqlPool(), deliveryId, attempt);
  return loaded ? recordedOutcome(deliveryId, attempt, loaded) : ended(deliveryId, attempt, "the delivery or its connector was deleted");
}

function ended(deliveryId: string, attempt: number, error: string): AttemptOutcome {
  return { deliveryId, attempt, status: "cancelled", done: true, statusCode: null, error, nextAttemptAt: null, sent: false };
}
