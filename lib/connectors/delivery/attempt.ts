import { config } from "@/lib/core/config";
import { sqlPool } from "@/lib/db/client";
import { Rollback, withTransaction } from "@/lib/db/transaction";
import { recordEvents } from "@/lib/events/record";
import { kickOutbox } from "@/lib/jobs/outbox";
import type { WebhookAnswer, WebhookSink } from "@/lib/net/webhook-post";
import { sendWebhookPost } from "@/lib/net/webhook-post";
import { handOffDeliveries } from "../delivery-jobs";
import { loadFirstAttempt, queueSuccess, recordSuccessBatched, type QueuedSuccess } from "./batched";
import type { StoredEvent } from "./envelope";
import { connectorFailingEvent, failureRun } from "./failing";
import { isGone, isSuccessStatus, retryDelayMs } from "./schedule";
import {
  answerExcerpt,
  connectorPostOptions,
  failedSend,
  httpResult,
  timedSend,
  webhookHeaderList,
  type SendResult,
  type TimedSendResult,
} from "./send";
import {
  cancelDelivery,
  cancelPendingDeliveries,
  lockConnectorFailures,
  recordAttempt,
  recordSuccess,
  updateConnectorFailure,
  type DeliveryStatus,
  type SavedAttempt,
} from "./store";
import { loadDelivery, type LoadedDelivery } from "./load";
import { storeDispatched, type UnsavedDelivery } from "./passes";

/**
 * One attempt of one delivery: `attemptDelivery(deliveryId, n)`. Idempotent through the database:
 * an attempt number is recorded once (unique (delivery, attempt)), so calling it again — a replayed
 * function body, a retried step — returns the recorded outcome without sending again. A delivery
 * that is finished is not attempted; one whose connector is off (or no longer subscribes to the
 * event's type) is cancelled. Throws only when the database fails (the job runner retries then).
 *
 * A success of a connector without a failure run is one statement that holds the delivery's row
 * only (attempt row, delivery; a dispatched delivery's row is written then, with its attempt in it:
 * passes.ts), plus, every few seconds, a single-row update of the connector's
 * `last_success_at` in its own transaction (store.ts: RECORD_SUCCESSES, TOUCH_CONNECTOR_SUCCESS), so
 * concurrent successes of one connector do not queue on its row lock. The first success after
 * failures is one statement under the connector's row lock (attempt row, delivery, failure run
 * reset). A failure is one transaction under the connector's row lock: the failure run grows, and
 * when the disable rule holds (failing.ts) the connector is turned off, `connector.failing` is
 * recorded and its other pending deliveries are cancelled, all at once (and a lane's first attempt
 * left pending is handed to the job runner: AttemptOptions.fromLane).
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
  /** Handed to the job runner for its retries in the transaction that recorded this attempt (AttemptOptions.fromLane). */
  queued: boolean;
}

const CONNECTOR_OFF = "cancelled: the connector is turned off";

export interface AttemptOptions {
  /**
   * Its `sent()` is called once a successful request to the endpoint is over, before its outcome is
   * recorded: a caller that limits requests in flight frees its slot there. Not called when nothing
   * was sent or the request failed (a failure is recorded, and may turn the connector off, before
   * the caller's next attempt starts).
   */
  listener?: Pick<FirstAttemptListener, "sent">;
  /**
   * Attempt 1 made by a lane (first-attempts.ts), which no job runs yet: it is loaded and a success
   * recorded in batches with the lanes' concurrent attempts (batched.ts), and a failure that leaves
   * the delivery pending is handed to the job runner, for its retries, in the transaction that
   * records it (outcome `queued`), so no crash between the two leaves it waiting for the sweep.
   */
  fromLane?: boolean;
  /** Attempt 1 as the dispatcher read it, still current (first-attempts.ts): used instead of loading it. */
  preloaded?: LoadedDelivery;
}

export async function attemptDelivery(deliveryId: string, attempt: number, options: AttemptOptions = {}): Promise<AttemptOutcome> {
  const pool = sqlPool();
  const fromLane = options.fromLane === true && attempt === 1;
  const loaded = fromLane
    ? (options.preloaded ?? (await loadFirstAttempt(deliveryId)))
    : await loadDelivery(pool, deliveryId, attempt);
  if (!loaded) return ended(deliveryId, attempt, "the delivery or its connector was deleted");
  if (loaded.recordedAttempt || loaded.status !== "pending") return recordedOutcome(deliveryId, attempt, loaded);

  const { connector, event } = loaded;
  const reason = cancelReason(loaded);
  if (reason !== null || !event) {
    await cancelDelivery(pool, deliveryId, reason ?? CONNECTOR_OFF);
    return reload(deliveryId, attempt);
  }

  const settings = config().connectors;
  const result = await timedSend(connector, event, settings.timeoutMs);
  if (result.ok) {
    options.listener?.sent();
    const fields = attemptFields(deliveryId, connector.id, attempt, result);
    const { failing, lastSuccessAt } = loaded.connectorHealth;
    const saved = failing
      ? await recordAttempt(pool, { ...fields, status: "succeeded", retryDelayMs: null, resetConnector: true })
      : fromLane
        ? await recordSuccessBatched(fields, lastSuccessAt)
        : await recordSuccess(pool, fields, lastSuccessAt);
    return saved ? sentOutcome(deliveryId, attempt, result, saved, false) : reload(deliveryId, attempt);
  }
  return recordFailure(loaded, deliveryId, attempt, result, { fromLane });
}

/** Why a pending delivery is cancelled instead of attempted, or null when it is attempted. */
function cancelReason({ connector, event }: LoadedDelivery): string | null {
  if (!event) return "cancelled: the delivery has no event";
  if (!connector.enabled) return CONNECTOR_OFF;
  if (connector.eventTypes.length > 0 && !connector.eventTypes.includes(event.type)) return `cancelled: the connector no longer subscribes to ${event.type}`;
  return null;
}

/** What a first attempt started by startWebhookFirstAttempt tells the lane that started it (first-attempts.ts). */
export interface FirstAttemptListener {
  /** The request is over and succeeded: the lane's slot may go (the success is recorded later, in a batch). */
  sent(): void;
  /** The attempt's outcome, once recorded (a failure's, handed off, before its slot may go). */
  settled(outcome: Pick<AttemptOutcome, "status" | "done" | "queued">): void;
  /** The database failed (the sweep hands the delivery to the job runner later). */
  failed(error: unknown): void;
}

/**
 * Attempt 1 of a webhook delivery as the dispatcher read it, still current (first-attempts.ts):
 * the hot path of every delivery. When nothing calls for more (it is pending, never attempted, its
 * connector is on, subscribes to the event and has no failure run) it is attemptDelivery(id, 1,
 * {fromLane, preloaded}) without that function's promises and result objects per delivery: one
 * object is the request's sink (sendWebhookPost) and, after a success, its entry in the batch of
 * records (queueSuccess); a failure is recorded by recordFailure, as there. Returns false, having
 * done nothing, when the delivery needs attemptDelivery.
 */
export function startWebhookFirstAttempt(deliveryId: string, loaded: LoadedDelivery, listener: FirstAttemptListener): boolean {
  const { connector, event } = loaded;
  if (connector.type !== "webhook" || connector.url === null || event === null) return false;
  if (loaded.status !== "pending" || loaded.recordedAttempt !== null || loaded.connectorHealth.failing || cancelReason(loaded) !== null) return false;
  new WebhookFirstAttempt(deliveryId, loaded, listener).send(connector.url, loaded, event);
  return true;
}

const RECORDED_SUCCESS = Object.freeze({ status: "succeeded", done: true, queued: false } as const);

/** One startWebhookFirstAttempt: the request's sink, then the success's record (QueuedSuccess). */
class WebhookFirstAttempt implements WebhookSink, QueuedSuccess {
  readonly attempt = 1;
  readonly connectorId: string;
  readonly lastSuccessAt: Date | null;
  readonly unsaved: UnsavedDelivery | null;
  readonly error = null;
  readonly startedMs = Date.now();
  readonly started = performance.now();
  latencyMs = 0;
  statusCode: number | null = null;
  responseExcerpt: string | null = null;

  /** Released once the request succeeded: a success waits for its batch's record, its event need not. */
  loaded: LoadedDelivery | null;

  constructor(
    readonly deliveryId: string,
    loaded: LoadedDelivery,
    readonly listener: FirstAttemptListener,
  ) {
    this.loaded = loaded;
    this.connectorId = loaded.connector.id;
    this.lastSuccessAt = loaded.connectorHealth.lastSuccessAt;
    this.unsaved = loaded.unsaved ?? null;
  }

  send(url: string, loaded: LoadedDelivery, event: StoredEvent): void {
    let body: string;
    let headers: string[];
    try {
      body = event.json;
      headers = webhookHeaderList(loaded.connector, event.id, body, this.startedMs);
    } catch (error) {
      return this.failed(error);
    }
    sendWebhookPost(url, body, headers, connectorPostOptions(config().connectors.timeoutMs), this);
  }

  answered(answer: WebhookAnswer): void {
    this.over();
    if (!isSuccessStatus(answer.status)) return this.recordFailure(httpResult(answer));
    this.statusCode = answer.status;
    this.responseExcerpt = answerExcerpt(answer);
    this.loaded = null;
    this.listener.sent();
    queueSuccess(this);
  }

  failed(error: unknown): void {
    this.over();
    this.recordFailure(failedSend(error));
  }

  over(): void {
    this.latencyMs = Math.round(performance.now() - this.started);
  }

  recordFailure(result: SendResult): void {
    const timed: TimedSendResult = { ...result, startedMs: this.startedMs, latencyMs: this.latencyMs };
    recordFailure(this.loaded as LoadedDelivery, this.deliveryId, 1, timed, { fromLane: true }).then(
      (outcome) => this.listener.settled(outcome),
      (error: unknown) => this.listener.failed(error),
    );
  }

  recorded(saved: SavedAttempt): void {
    if (saved) return this.listener.settled(RECORDED_SUCCESS);
    reload(this.deliveryId, 1).then(
      (outcome) => this.listener.settled(outcome),
      (error: unknown) => this.listener.failed(error),
    );
  }

  recordFailed(error: unknown): void {
    this.listener.failed(error);
  }
}

/** Records a failed attempt (see attemptDelivery); `fromLane` as AttemptOptions.fromLane: a delivery left pending is handed to the job runner in the same transaction. */
async function recordFailure(
  loaded: LoadedDelivery,
  deliveryId: string,
  attempt: number,
  result: TimedSendResult,
  { fromLane }: Pick<AttemptOptions, "fromLane">,
): Promise<AttemptOutcome> {
  const settings = config().connectors;
  const { connector } = loaded;
  await storeDispatched([loaded.unsaved]);
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
    const queued = fromLane === true && recorded.status === "pending";
    if (queued) await handOffDeliveries(client, [{ deliveryId, connectorId: connector.id }]);
    return { recorded, disableReason: run.disableReason, queued };
  });
  if (!saved) return reload(deliveryId, attempt);
  if (saved.queued) void kickOutbox();
  if (saved.disableReason !== null) {
    console.warn(`[sieve] connector ${connector.id} ("${connector.name}") turned off: ${saved.disableReason} Last error: ${result.error}`);
  }
  return sentOutcome(deliveryId, attempt, result, saved.recorded, saved.queued);
}

function attemptFields(deliveryId: string, connectorId: string, attempt: number, result: TimedSendResult) {
  return {
    deliveryId,
    connectorId,
    attempt,
    startedMs: result.startedMs,
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
  queued: boolean,
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
    queued,
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
    queued: false,
  };
}

async function reload(deliveryId: string, attempt: number): Promise<AttemptOutcome> {
  const loaded = await loadDelivery(sqlPool(), deliveryId, attempt);
  return loaded ? recordedOutcome(deliveryId, attempt, loaded) : ended(deliveryId, attempt, "the delivery or its connector was deleted");
}

function ended(deliveryId: string, attempt: number, error: string): AttemptOutcome {
  return { deliveryId, attempt, status: "cancelled", done: true, statusCode: null, error, nextAttemptAt: null, sent: false, queued: false };
}
