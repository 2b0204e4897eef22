import { assertSameProject, type ProjectScope } from "@/lib/auth/authorize";
import { ApiError } from "@/lib/core/errors";
import { db } from "@/lib/db/client";
import type { Event as EventRow } from "@/lib/db/generated/client";
import { serializeEvent } from "@/lib/events/feed";

/**
 * The inbox's read state of events (`readAt`). Marking changes nothing else about an event: its
 * position in the feed and its facts stay as recorded; `updatedAt` says when the state last changed.
 */

/** An event the key may address: 404 when absent, 403 when it belongs to another project (like folders and assets). */
export async function requireEvent(key: ProjectScope, eventId: string): Promise<EventRow> {
  const event = await db().event.findUnique({ where: { id: eventId } });
  if (!event) throw new ApiError("event/not-found");
  assertSameProject(key, event.projectId);
  return event;
}

/** Marks one event read (readAt now) or unread (readAt null) and returns it. */
export async function setEventRead(event: EventRow, read: boolean) {
  const now = new Date();
  const row = await db()
    .event.update({ where: { id: event.id }, data: { readAt: read ? now : null, updatedAt: now } })
    .catch((error: unknown) => {
      // Deleted in between (its project was deleted).
      if ((error as { code?: string }).code === "P2025") throw new ApiError("event/not-found");
      throw error;
    });
  return serializeEvent(row);
}

/**
 * Marks several events of a project read or unread. Ids of unknown events and of other projects'
 * events are ignored; events already in the wanted state keep their readAt. `updated` counts the
 * events whose state changed.
 */
export async function setEventsRead(projectId: string, eventIds: readonly string[], read: boolean): Promise<{ updated: number }> {
  const now = new Date();
  const { count } = await db().event.updateMany({
    where: { projectId, id: { in: [...new Set(eventIds)] }, readAt: read ? null : { not: null } },
    data: { readAt: read ? now : null, updatedAt: now },
  });
  return { updated: count };
}

/** Unread events of a project, all and of severity high (the (project_id, read_at) index serves both). */
export async function countUnread(projectId: string): Promise<{ unread: number; unreadHigh: number }> {
  const [row] = await db().$queryRaw<{ unread: bigint; unread_high: bigint }[]>`
    SELECT count(*) AS unread, count(*) FILTER (WHERE severity = 'high') AS unread_high
      FROM events WHERE project_id = ${projectId}::uuid AND read_at IS NULL`;
  return { unread: Number(row?.unread ?? 0n), unreadHigh: Number(row?.unread_high ?? 0n) };
}
