import { db, sqlPool } from "@/lib/db/client";
import { normalizeHash } from "./phash";

/**
 * Hash lists: named sets of 64-bit perceptual hashes (phash.ts) in PostgreSQL (`hash_lists`,
 * `hash_list_entries`), managed with the admin CLI. A match against a list applies the list's
 * action ("hold": a safety hold, lib/assets/safety-hold.ts; wired into the pipeline later).
 */

export const HASH_LIST_ACTIONS = ["hold"] as const;
export type HashListAction = (typeof HASH_LIST_ACTIONS)[number];

/** Default and largest accepted Hamming distance for findMatches(). */
export const DEFAULT_MAX_DISTANCE = 8;
export const MAX_MAX_DISTANCE = 32;
/** Most near matches (distance >= 1) returned by one findMatches() call. */
export const NEAR_MATCH_LIMIT = 100;

export interface HashListInfo {
  id: string;
  name: string;
  description: string | null;
  action: string;
  entries: number;
  createdAt: number;
}

export interface HashMatch {
  entryId: string;
  hash: string;
  label: string | null;
  distance: number;
  list: { id: string; name: string; action: string };
}

export async function createHashList(input: {
  name: string;
  description?: string | null;
  action?: HashListAction;
}): Promise<HashListInfo> {
  const name = input.name.trim();
  if (name === "") throw new Error("Hash list name is required");
  const action = input.action ?? "hold";
  if (!HASH_LIST_ACTIONS.includes(action)) throw new Error(`Unknown hash list action ${JSON.stringify(action)}`);
  const existing = await db().hashList.findUnique({ where: { name } });
  if (existing) throw new Error(`Hash list ${JSON.stringify(name)} already exists`);
  const list = await db().hashList.create({ data: { name, description: input.description ?? null, action } });
  return { id: list.id, name: list.name, description: list.description, action: list.action, entries: 0, createdAt: list.createdAt.getTime() };
}

async function requireList(listName: string) {
  const list = await db().hashList.findUnique({ where: { name: listName.trim() } });
  if (!list) throw new Error(`Hash list ${JSON.stringify(listName)} not found`);
  return list;
}

/**
 * Adds hashes (16 hex characters, case-insensitive, stored lowercase) to a list. All hashes are
 * validated before anything is written; hashes already in the list are skipped (idempotent).
 */
export async function addHashes(
  listName: string,
  hashes: string[],
  options: { label?: string | null } = {},
): Promise<{ list: string; added: number; skipped: number }> {
  const normalized = [...new Set(hashes.map(normalizeHash))];
  if (normalized.length === 0) throw new Error("No hashes given");
  const list = await requireList(listName);
  const { count } = await db().hashListEntry.createMany({
    data: normalized.map((hash) => ({ listId: list.id, hash, label: options.label ?? null })),
    skipDuplicates: true,
  });
  return { list: list.name, added: count, skipped: hashes.length - count };
}

/** Removes one hash from a list; `removed` is false when it was not there. */
export async function removeHash(listName: string, hash: string): Promise<{ list: string; hash: string; removed: boolean }> {
  const h = normalizeHash(hash);
  const list = await requireList(listName);
  const { count } = await db().hashListEntry.deleteMany({ where: { listId: list.id, hash: h } });
  return { list: list.name, hash: h, removed: count > 0 };
}

export async function listHashLists(): Promise<HashListInfo[]> {
  const lists = await db().hashList.findMany({ orderBy: { name: "asc" }, include: { _count: { select: { entries: true } } } });
  return lists.map((l) => ({
    id: l.id,
    name: l.name,
    description: l.description,
    action: l.action,
    entries: l._count.entries,
    createdAt: l.createdAt.getTime(),
  }));
}

interface NearRow {
  id: string;
  hash: string;
  label: string | null;
  distance: number;
  list_id: string;
  list_name: string;
  list_action: string;
}

/**
 * Entries within `maxDistance` bits (Hamming) of `hash`, closest first, each with its list.
 *
 * 1. Exact matches: an index lookup on `hash_list_entries(hash)`, O(log n).
 * 2. If maxDistance > 0, near matches: a sequential scan computing
 *    `bit_count(('x'||hash)::bit(64) # ('x'||$1)::bit(64))` for every entry (PostgreSQL 14+). No
 *    index helps here, so the cost is linear in the number of entries: roughly 0.1–0.3 µs of CPU
 *    per row, i.e. ~10 ms per 100k entries and a few hundred ms per million, per lookup. At most
 *    NEAR_MATCH_LIMIT near matches are returned. Beyond a few million entries (or for many lookups
 *    per asset, e.g. video frames), switch to a multi-index scheme (split the hash into
 *    maxDistance + 1 chunks, index each chunk: any match within the distance shares one chunk
 *    exactly) or a BK-tree in memory.
 */
export async function findMatches(hash: string, maxDistance = DEFAULT_MAX_DISTANCE): Promise<HashMatch[]> {
  const h = normalizeHash(hash);
  if (!Number.isInteger(maxDistance) || maxDistance < 0 || maxDistance > MAX_MAX_DISTANCE) {
    throw new Error(`maxDistance must be an integer from 0 to ${MAX_MAX_DISTANCE}`);
  }
  const exact = await db().hashListEntry.findMany({ where: { hash: h }, include: { list: true }, orderBy: { createdAt: "asc" } });
  const matches: HashMatch[] = exact.map((e) => ({
    entryId: e.id,
    hash: e.hash,
    label: e.label,
    distance: 0,
    list: { id: e.list.id, name: e.list.name, action: e.list.action },
  }));
  if (maxDistance === 0) return matches;
  // Entries are validated on the way in; the CASE keeps a row written by other means from breaking the cast.
  const { rows } = await sqlPool().query<NearRow>(
    `SELECT e.id, e.hash, e.label, e.distance, l.id AS list_id, l.name AS list_name, l.action AS list_action
       FROM (
         SELECT id, list_id, hash, label, created_at,
                CASE WHEN hash ~ '^[0-9a-f]{16}$'
                     THEN bit_count(('x' || hash)::bit(64) # ('x' || $1::text)::bit(64))::int END AS distance
           FROM hash_list_entries
          WHERE hash <> $1
       ) e
       JOIN hash_lists l ON l.id = e.list_id
      WHERE e.distance <= $2
      ORDER BY e.distance, e.created_at
      LIMIT $3`,
    [h, maxDistance, NEAR_MATCH_LIMIT],
  );
  for (const r of rows) {
    matches.push({
      entryId: r.id,
      hash: r.hash,
      label: r.label,
      distance: Number(r.distance),
      list: { id: r.list_id, name: r.list_name, action: r.list_action },
    });
  }
  return matches;
}

/** The closest entry of a `hold` list to the first of `hashes` that has one within `maxDistance`. */
export interface HoldMatch extends HashMatch {
  /** Which of the hashes matched. */
  matchedHash: string;
}

/**
 * What the pipeline asks for every image and frame (pHash and dHash at once): one statement that
 * computes both distances in the same scan and keeps only lists whose action is `hold`, so an
 * image costs one round trip, and a 30-frame video 30, instead of two per hash. The hashes are
 * tried in order: a match of the first wins over a closer one of the second.
 */
export async function findHoldMatch(hashes: readonly string[], maxDistance = DEFAULT_MAX_DISTANCE): Promise<HoldMatch | null> {
  const probes = hashes.map(normalizeHash);
  if (!Number.isInteger(maxDistance) || maxDistance < 0 || maxDistance > MAX_MAX_DISTANCE) {
    throw new Error(`maxDistance must be an integer from 0 to ${MAX_MAX_DISTANCE}`);
  }
  if (probes.length === 0) return null;
  const { rows } = await sqlPool().query<NearRow & { probe: string }>(FIND_HOLD_MATCH, [probes, maxDistance]);
  const r = rows[0];
  if (!r) return null;
  return {
    entryId: r.id,
    hash: r.hash,
    label: r.label,
    distance: Number(r.distance),
    list: { id: r.list_id, name: r.list_name, action: r.list_action },
    matchedHash: r.probe,
  };
}

export const FIND_HOLD_MATCH = `SELECT e.id, e.hash, e.label, e.distance, e.probe, l.id AS list_id, l.name AS list_name, l.action AS list_action
  FROM (
    SELECT x.id, x.list_id, x.hash, x.label, x.created_at, p.hash AS probe, p.n,
           CASE WHEN x.hash ~ '^[0-9a-f]{16}$'
                THEN bit_count(('x' || x.hash)::bit(64) # ('x' || p.hash)::bit(64))::int END AS distance
      FROM unnest($1::text[]) WITH ORDINALITY AS p(hash, n)
      CROSS JOIN hash_list_entries x
  ) e
  JOIN hash_lists l ON l.id = e.list_id AND l.action = 'hold'
 WHERE e.distance <= $2
 ORDER BY e.n, e.distance, e.created_at
 LIMIT 1`;
