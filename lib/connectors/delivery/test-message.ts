import { ApiError } from "@/lib/core/errors";
import { sqlPool } from "@/lib/db/client";
import { config } from "@/lib/core/config";
import { envelopeJson, testEnvelope } from "./envelope";
import { timedSend } from "./send";
import { loadDelivery } from "./load";
import { insertTestDelivery, recordAttempt } from "./store";

/**
 * A test message (`POST /connectors/{connectorId}/test`): a delivery without an event, attempted
 * once, now, with a synthetic `connector.test` envelope (its id is the delivery's id), and logged
 * like any attempt. It works on a connector that is off, and never changes the connector's failure
 * run (a test neither turns a connector off nor clears its failures). Returns the delivery id.
 */
export async function sendTestMessage(connectorId: string): Promise<string> {
  const pool = sqlPool();
  let delivery: { id: string; createdAt: Date };
  try {
    delivery = await insertTestDelivery(pool, connectorId);
  } catch (error) {
    // 23503: no such connector (foreign key); 22P02: not a uuid.
    const code = (error as { code?: string }).code;
    if (code === "23503" || code === "22P02") throw new ApiError("connector/not-found");
    throw error;
  }
  const loaded = await loadDelivery(pool, delivery.id, 1);
  if (!loaded) throw new ApiError("connector/not-found"); // deleted meanwhile (the delivery went with it)
  const { connector } = loaded;
  const message = envelopeJson(testEnvelope(delivery.id, connector.projectId, connector.name, delivery.createdAt));
  const result = await timedSend(connector, message, config().connectors.timeoutMs);
  await recordAttempt(pool, {
    deliveryId: delivery.id,
    connectorId: connector.id,
    attempt: 1,
    startedMs: result.startedMs,
    latencyMs: result.latencyMs,
    statusCode: result.statusCode,
    error: result.error,
    responseExcerpt: result.responseExcerpt,
    status: result.ok ? "succeeded" : "failed",
    retryDelayMs: null,
    resetConnector: false,
  });
  return delivery.id;
}
