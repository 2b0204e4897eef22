import { inngest } from "@/inngest/client";
import { CONNECTOR_DELIVERY_EVENT, type ConnectorDeliveryData } from "@/lib/connectors/delivery-jobs";
import { attemptDelivery } from "@/lib/connectors/delivery/attempt";
import { failDelivery } from "@/lib/connectors/delivery/give-up";

/** A safety net against a schedule that never ends; the configured one has at most a few dozen attempts. */
const MAX_ATTEMPTS = 100;

/**
 * Delivers one event (or replay) to one connector: one run per delivery that needs one (the job
 * message id deduplicates). Fresh deliveries get their first attempt in the dispatching process
 * (lib/connectors/delivery/first-attempts.ts) and come here when it failed, when they waited too
 * long for it, or when a crash left them unattempted; replays come here directly.
 * The first attempt runs in the function body, not in a step: attemptDelivery is
 * idempotent through the database (an attempt number is recorded once), so a replayed body gets the
 * recorded outcome back without sending again, and a delivery that succeeds at once costs a single
 * call of our serve endpoint. Each later attempt waits until the time the delivery row records
 * (sleepUntil: the schedule lives in the database, and sub-second test schedules are not rounded up
 * to 1 s as step.sleep does) and is its own memoized step. A failed HTTP attempt is an outcome, not
 * an error; only infrastructure errors (the database) throw, and `retries` covers those. When even
 * they run out, onFailure ends the delivery as failed. All state is in the executor's tables and our
 * rows, so a delivery survives a restart mid-schedule.
 *
 * Concurrency (the embedded executor runs SIEVE_EXECUTOR_CONCURRENCY = 8 runs per process; a
 * sleeping run holds no slot): at most 4 attempts at once per connector, so one slow or hanging
 * endpoint (up to CONNECTOR_TIMEOUT_MS per attempt) holds at most 4 slots, and at most 6 attempts
 * at once in all, so asset processing always keeps at least 2 of the 8 slots.
 */
export const deliverToConnector = inngest.createFunction(
  {
    id: "deliver-to-connector",
    name: "Deliver to connector",
    retries: 3,
    concurrency: [{ limit: 4, key: "event.data.connectorId" }, { limit: 6 }],
    triggers: [{ event: CONNECTOR_DELIVERY_EVENT }],
    onFailure: async ({ event, error, step }) => {
      const data = event.data.event.data as ConnectorDeliveryData;
      await step.run("mark-failed", () => failDelivery(data.deliveryId, error.message));
    },
  },
  async ({ event, step }) => {
    const { deliveryId } = event.data as ConnectorDeliveryData;
    let outcome = await attemptDelivery(deliveryId, 1);
    for (let n = 2; !outcome.done && n <= MAX_ATTEMPTS; n++) {
      await step.sleepUntil(`wait-${n}`, new Date(outcome.nextAttemptAt ?? Date.now()));
      outcome = await step.run(`attempt-${n}`, () => attemptDelivery(deliveryId, n));
    }
    return outcome;
  },
);
