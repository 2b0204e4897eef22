import { db } from "@/lib/db/client";
import type { Event as EventRow } from "@/lib/db/generated/client";
import { ApiError } from "@/lib/core/errors";

/**
 * The cursor feed. Events are ordered by (txid, seq). Only events of transactions older than every
 * transaction still running (the snapshot's xmin) are shown, so an event whose transaction commits
 * late can never appear behind a cursor already handed out.
 */
interface Position {
  txid: bigint;
  seq: bigint;
}

const CURSOR_PREFIX = "v1.";

export function encodeCursor(position: Position): string {
  return Buffer.from(`${CURSOR_PREFIX}${position.txid}.${position.seq}`, "utf8").toString("base64url");
}

export function decodeCursor(cursor: string): Position {
  const text = Buffer.from(cursor, "base64url").toString("utf8");
  const match = /^v1\.(\d{1,19})\.(\d{1,19})$/.exec(text);
  if (!match || Buffer.from(text, "utf8").toString("base64url") !== cursor) throw new ApiError("events/invalid-cursor");
  return { txid: BigInt(match[1] as string), seq: BigInt(match[2] as string) };
}

async function visibleHorizon(): Promise<bigint> {
  const [row] = await db().$queryRaw<{ horizon: bigint }[]>`
    SELECT (pg_snapshot_xmin(pg_current_snapshot())::text)::bigint AS horizon`;
  return row?.horizon ?? 0n;
}

export function serializeEvent(row: EventRow) {
  return {
    id: row.id,
    projectId: row.projectId,
    userId: row.userId,
    type: row.type,
    severity: row.severity,
    title: row.title,
    description: row.description,
    assetId: row.assetId,
    asset: row.asset ?? null,
    facts: row.facts,
    notify: row.notify,
    createdAt: row.createdAt.getTime(),
    updatedAt: row.updatedAt.getTime(),
    readAt: row.readAt ? row.readAt.getTime() : null,
  };
}

export async function readEventFeed(projectId: string, after: string | undefined, limit: number) {
  const horizon = await visibleHorizon();
  if (after === undefined) {
    // "Now": everything below the horizon is the past; events from running transactions come next.
    return { events: [], cursor: encodeCursor({ txid: horizon, seq: 0n }), hasMore: false };
  }
  const from = decodeCursor(after);
  const rows = await db().event.findMany({
    where: {
      projectId,
      txid: { lt: horizon },
      OR: [{ txid: { gt: from.txid } }, { txid: from.txid, seq: { gt: from.seq } }],
    },
    orderBy: [{ txid: "asc" }, { seq: "asc" }],
    take: limit + 1,
  });
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    events: page.map(serializeEvent),
    cursor: last ? encodeCursor({ txid: last.txid, seq: last.seq }) : after,
    hasMore: rows.length > limit,
  };
}
