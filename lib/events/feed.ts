import type pg from "pg";
import { sqlPool } from "@/lib/db/client";
import { withTransaction } from "@/lib/db/transaction";
import type { Event as EventRow } from "@/lib/db/generated/client";
import { ApiError } from "@/lib/core/errors";
import type { EventAssetSnapshot, EventFact, EventType } from "@/lib/events/catalogue";
import type { ApiEvent } from "@/lib/events/schemas";

/**
 * The cursor feed. Events are ordered by (txid, seq). Only events of transactions older than every
 * transaction still running (the snapshot's xmin) are shown, so an event whose transaction commits
 * late can never appear behind a cursor already handed out.
 */
export interface Position {
  txid: bigint;
  seq: bigint;
}

const CURSOR_PREFIX = "v1.";
const MAX_BIGINT = 2n ** 63n - 1n;

/** The cursor of position (0, 0): `after` with it reads the feed from its very beginning. */
export const START_CURSOR = "djEuMC4w";

export function encodeCursor(position: Position): string {
  return Buffer.from(`${CURSOR_PREFIX}${position.txid}.${position.seq}`, "utf8").toString("base64url");
}

export function decodeCursor(cursor: string): Position {
  const text = Buffer.from(cursor, "base64url").toString("utf8");
  const match = /^v1\.(\d{1,19})\.(\d{1,19})$/.exec(text);
  if (!match) throw new ApiError("events/invalid-cursor");
  const position = { txid: BigInt(match[1] as string), seq: BigInt(match[2] as string) };
  // Only the canonical spelling (no padding, no leading zeros) of a position PostgreSQL's bigint holds.
  if (position.txid > MAX_BIGINT || position.seq > MAX_BIGINT || encodeCursor(position) !== cursor) throw new ApiError("events/invalid-cursor");
  return position;
}

/** Optional filters of the feed; they apply within the cursor order. */
export interface FeedFilters {
  types?: readonly EventType[];
  severity?: "low" | "high";
  /** true: only unread events; false: only read ones. */
  unread?: boolean;
}

export function isFiltered(filters: FeedFilters): boolean {
  return filters.types !== undefined || filters.severity !== undefined || filters.unread !== undefined;
}

const later = (a: Position, b: Position): Position => (a.txid > b.txid || (a.txid === b.txid && a.seq > b.seq) ? a : b);

/**
 * Where the next page starts. Unfiltered, it is the last event returned (or `from` when there was
 * none). A filtered page that is not followed by more matches has examined every event below the
 * horizon, so its cursor moves up to (horizon, 0): the next poll does not scan the skipped events
 * again. Every event returned lies below the horizon, so this never moves before one of them.
 */
export function nextPosition(input: { from: Position; last: Position | undefined; horizon: bigint; filtered: boolean; hasMore: boolean }): Position {
  const afterPage = input.last ?? input.from;
  if (!input.filtered || input.hasMore) return afterPage;
  return later(afterPage, { txid: input.horizon, seq: 0n });
}

/**
 * The horizon (the snapshot's xmin). The same statement rules out sorting for the rest of its
 * transaction (`set_config(…, true)` is SET LOCAL), so a page costs no extra round trip for it; run
 * outside a transaction, that setting lapses with the statement.
 */
export const SELECT_HORIZON = `SELECT (pg_snapshot_xmin(pg_current_snapshot())::text) AS horizon, set_config('enable_sort', 'off', true)`;

async function visibleHorizon(client: Pick<pg.Pool, "query">): Promise<bigint> {
  const { rows } = await client.query<{ horizon: string }>({ name: "sieve-feed-horizon", text: SELECT_HORIZON });
  return BigInt(rows[0]?.horizon ?? 0);
}

/**
 * A page of the feed. Hand-written (the feed is polled constantly): the row comparison
 * `(txid, seq) > (…)` lets the (project_id, txid, seq) index start at the cursor, where an OR of
 * conditions would scan the project's events from the beginning. Filters are $5–$7 (null = any).
 * bigint columns come back as strings from node-postgres.
 */
export const SELECT_FEED_PAGE = `SELECT id, project_id AS "projectId", user_id AS "userId", type, severity::text AS severity, title, description,
       asset_id AS "assetId", asset, facts, notify, created_at AS "createdAt", updated_at AS "updatedAt", read_at AS "readAt",
       txid, seq
  FROM events
 WHERE project_id = $1::uuid AND txid < $2::bigint AND (txid, seq) > ($3::bigint, $4::bigint)
   AND ($5::text[] IS NULL OR type = ANY ($5::text[]))
   AND ($6::text IS NULL OR severity::text = $6::text)
   AND ($7::boolean IS NULL OR (read_at IS NULL) = $7::boolean)
 ORDER BY txid, seq
 LIMIT $8`;

type FeedRow = Omit<EventRow, "txid" | "seq"> & { txid: string; seq: string };

/**
 * The Event object of the API, typed by its response schema. `type`, `asset` and `facts` are read
 * back as recordEvents (the one writer) stored them: a catalogue type, snapshot and facts.
 */
export function serializeEvent(row: Omit<EventRow, "txid" | "seq">): ApiEvent {
  return {
    id: row.id,
    projectId: row.projectId,
    userId: row.userId,
    type: row.type as EventType,
    severity: row.severity,
    title: row.title,
    description: row.description,
    assetId: row.assetId,
    asset: (row.asset ?? null) as EventAssetSnapshot | null,
    facts: row.facts as unknown as EventFact[],
    notify: row.notify,
    createdAt: row.createdAt.getTime(),
    updatedAt: row.updatedAt.getTime(),
    readAt: row.readAt ? row.readAt.getTime() : null,
  };
}

export async function readEventFeed(projectId: string, after: string | undefined, limit: number, filters: FeedFilters = {}) {
  // A bad cursor is refused before anything is read.
  const from = after === undefined ? undefined : decodeCursor(after);
  if (from === undefined) {
    // "Now": everything below the horizon is the past; events from running transactions come next.
    return { events: [], cursor: encodeCursor({ txid: await visibleHorizon(sqlPool()), seq: 0n }), hasMore: false };
  }
  // Only the ordered index scan reads a page without touching the project's other events. The
  // planner can misjudge a project's size (statistics lag behind a burst of events, a new project is
  // not among the most common values) and then sorts all its events for every page (~50 ms at 100k):
  // the horizon's statement rules sorting out for the page's. One transaction, four round trips
  // (BEGIN, horizon, page, COMMIT); the page's statement still takes its own, later snapshot, as
  // when the horizon was read first on its own.
  const { horizon, rows } = await withTransaction(sqlPool(), async (client) => {
    const horizon = await visibleHorizon(client);
    const values = [
      projectId,
      horizon.toString(),
      from.txid.toString(),
      from.seq.toString(),
      filters.types ? [...filters.types] : null,
      filters.severity ?? null,
      filters.unread ?? null,
      limit + 1,
    ];
    return { horizon, rows: (await client.query<FeedRow>(SELECT_FEED_PAGE, values)).rows };
  });
  const page = rows.slice(0, limit);
  const hasMore = rows.length > limit;
  const last = page.at(-1);
  const lastPosition = last && { txid: BigInt(last.txid), seq: BigInt(last.seq) };
  const next = nextPosition({ from, last: lastPosition, horizon, filtered: isFiltered(filters), hasMore });
  return {
    events: page.map(serializeEvent),
    // The same cursor string when nothing moved (a canonical cursor encodes back to itself).
    cursor: encodeCursor(next),
    hasMore,
  };
}
