import { ApiError } from "@/lib/core/errors";
import { db, sqlPool } from "@/lib/db/client";
import type { Connector as ConnectorRow, Prisma } from "@/lib/db/generated/client";
import { prismaRunner } from "@/lib/db/sql";
import { kickOutbox } from "@/lib/jobs/outbox";
import { enqueueDeliveries } from "./delivery-jobs";
import { SELECT_EVENT_DELIVERY_IDS } from "./delivery/passes";
import { sendTestMessage } from "./delivery/test-message";
import { lockConnector } from "./connectors";
import type { ListDeliveriesQuery } from "./schemas";
import { DELIVERY_INCLUDE, serializeDelivery, type DeliveryRow, type StoredDeliveryRow } from "./serialize";

/** A connector's deliveries: the log, one delivery, replays and test messages. */

export async function listDeliveries(connector: ConnectorRow, query: ListDeliveriesQuery) {
  const where: Prisma.ConnectorDeliveryWhereInput = {
    connectorId: connector.id,
    ...(query.status ? { status: query.status } : {}),
    ...(query.eventId ? { id: { in: await deliveriesOfEvent(connector.id, query.eventId.toLowerCase()) } } : {}),
  };
  const skip = query.pageIndex * query.pageSize;
  const [total, rows] = await db().$transaction([
    db().connectorDelivery.count({ where }),
    db().connectorDelivery.findMany({
      where,
      include: DELIVERY_INCLUDE,
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      skip,
      take: query.pageSize,
    }),
  ]);
  return { items: (await withEventTypes(rows)).map(serializeDelivery), total, hasMore: skip + rows.length < total };
}

/** The ids of the connector's deliveries of an event (a first delivery's id is derived from it: passes.ts). */
export async function deliveriesOfEvent(connectorId: string, eventId: string): Promise<string[]> {
  const { rows } = await sqlPool().query<{ id: string }>(SELECT_EVENT_DELIVERY_IDS, [eventId, connectorId]);
  return rows.map((row) => row.id);
}

/** The delivery, if it is one of this connector's (404 `delivery/not-found` otherwise). */
export async function requireDelivery(connector: ConnectorRow, deliveryId: string): Promise<DeliveryRow> {
  const delivery = await db().connectorDelivery.findUnique({ where: { id: deliveryId }, include: DELIVERY_INCLUDE });
  if (!delivery || delivery.connectorId !== connector.id) throw new ApiError("delivery/not-found");
  return (await withEventTypes([delivery]))[0]!;
}

/** Deliveries with their events' types, read in one query (a delivery has no foreign key to its event). */
async function withEventTypes(rows: readonly StoredDeliveryRow[]): Promise<DeliveryRow[]> {
  const ids = [...new Set(rows.flatMap((row) => (row.eventId === null ? [] : [row.eventId])))];
  const events = ids.length === 0 ? [] : await db().event.findMany({ where: { id: { in: ids } }, select: { id: true, type: true } });
  const types = new Map(events.map((event) => [event.id, event.type]));
  return rows.map((row) => {
    const type = row.eventId === null ? undefined : types.get(row.eventId);
    return { ...row, event: type === undefined ? null : { type } };
  });
}

/**
 * A new delivery of the same event (`replayOf` = the original), pending and queued in one
 * transaction; the job is sent after commit. Refused when the connector is off (409), and for a
 * test message (it has no event: send a new test instead).
 */
export async function replayDelivery(connector: ConnectorRow, original: DeliveryRow) {
  if (original.eventId === null) {
    throw new ApiError(
      "request/validation-failed",
      "Invalid request: a test message cannot be replayed (it carries no event); send a new one with POST /connectors/{connectorId}/test.",
    );
  }
  const eventId = original.eventId;
  const created = await db().$transaction(async (tx) => {
    // Locked so a concurrent disable either sees this delivery pending or refuses it here.
    const current = await lockConnector(tx, connector.id);
    if (!current.enabled) throw new ApiError("connector/disabled");
    const row = await tx.connectorDelivery.create({
      data: { connectorId: current.id, eventId, replayOf: original.id, status: "pending", queuedAt: new Date() },
      include: DELIVERY_INCLUDE,
    });
    await enqueueDeliveries(prismaRunner(tx), [{ deliveryId: row.id, connectorId: current.id }]);
    return row;
  });
  void kickOutbox();
  return serializeDelivery({ ...created, event: original.event });
}

/** Sends a test message now (one attempt, even to a connector that is off) and shows its delivery. */
export async function testConnector(connector: ConnectorRow) {
  const deliveryId = await sendTestMessage(connector.id);
  return serializeDelivery(await requireDelivery(connector, deliveryId));
}
