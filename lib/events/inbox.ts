import { db, sqlPool } from "@/lib/db/client";
import { decodeCursor, encodeCursor, serializeEvent, type FeedFilters } from "@/lib/events/feed";
import type { ApiEvent } from "@/lib/events/schemas";

/**
 * The portal's inbox: a project's events newest first, in pages. The feed (feed.ts) reads oldest
 * first for integrations that follow it; a person opens the inbox at the top and pages back.
 *
 * Order is the feed's (txid, seq), reversed, so the (project_id, txid, seq) index serves both
 * (scanned backwards here). `before` is the feed's cursor format naming the last event shown: the
 * next page starts strictly below it. An event whose transaction commits after a page was read
 * can land above that page's cursor; the inbox polls its first pages, so it shows up there.
 */
export interface InboxPage {
  events: ApiEvent[];
  /** Cursor of the next (older) page; null at the end. */
  nextCursor: string | null;
}

const MAX_POSITION = "9223372036854775807";

export const SELECT_INBOX_PAGE = `SELECT id, project_id AS "projectId", user_id AS "userId", type, severity::text AS severity, title, description,
       asset_id AS "assetId", asset, facts, notify, created_at AS "createdAt", updated_at AS "updatedAt", read_at AS "readAt",
       txid, seq
  FROM events
 WHERE project_id = $1::uuid AND (txid, seq) < ($2::bigint, $3::bigint)
   AND ($4::text[] IS NULL OR type = ANY ($4::text[]))
   AND ($5::text IS NULL OR severity::text = $5::text)
   AND ($6::boolean IS NULL OR (read_at IS NULL) = $6::boolean)
 ORDER BY txid DESC, seq DESC
 LIMIT $7`;

// txid and seq come back as strings from node-postgres (bigint); a `::text` output column would
// make ORDER BY sort them as text (9 before 10).
type InboxRow = Parameters<typeof serializeEvent>[0] & { txid: string; seq: string };

/** A page of the inbox. An invalid `before` is 400 events/invalid-cursor, as in the feed. */
export async function readInbox(projectId: string, before: string | undefined, limit: number, filters: FeedFilters = {}): Promise<InboxPage> {
  const from = before === undefined ? undefined : decodeCursor(before);
  const values = [
    projectId,
    from ? from.txid.toString() : MAX_POSITION,
    from ? from.seq.toString() : MAX_POSITION,
    filters.types ? [...filters.types] : null,
    filters.severity ?? null,
    filters.unread ?? null,
    limit + 1,
  ];
  const { rows } = await sqlPool().query<InboxRow>(SELECT_INBOX_PAGE, values);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    events: page.map(({ txid: _txid, seq: _seq, ...row }) => serializeEvent(row)),
    nextCursor: rows.length > limit && last ? encodeCursor({ txid: BigInt(last.txid), seq: BigInt(last.seq) }) : null,
  };
}

/** Marks every unread event of the project read; `updated` counts them. */
export async function setAllEventsRead(projectId: string): Promise<{ updated: number }> {
  const now = new Date();
  const { count } = await db().event.updateMany({ where: { projectId, readAt: null }, data: { readAt: now, updatedAt: now } });
  return { updated: count };
}
