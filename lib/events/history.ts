import { db } from "@/lib/db/client";
import { serializeEvent } from "@/lib/events/feed";

/** An asset's events, newest first (at most `limit`): what happened to it, for the people reviewing it. */
export async function assetEventHistory(projectId: string, assetId: string, limit = 100) {
  const rows = await db().event.findMany({
    where: { projectId, assetId },
    orderBy: [{ createdAt: "desc" }, { seq: "desc" }],
    take: limit,
    omit: { txid: true, seq: true },
  });
  return rows.map(serializeEvent);
}
