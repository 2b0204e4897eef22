import { builtinLens } from "@/lib/cdn/builtin-lenses";
import { ApiError } from "@/lib/core/errors";
import { sqlPool } from "@/lib/db/client";
import { NotifiedCache } from "@/lib/db/notified-cache";
import { processSingleton } from "@/lib/core/singleton";

/** A lens as the CDN applies it: a project's own, else a built-in one of the same identifier. */
export interface CdnLens {
  projectId: string | null;
  identifier: string;
  version: number;
  type: string;
  active: boolean;
  transforms: { type: string; options: unknown }[] | null;
}

export const SELECT_CDN_LENS = `SELECT project_id::text AS "projectId", identifier, version, type, active, transforms
  FROM lenses WHERE project_id = $1::uuid AND identifier = $2`;

/** Lens definitions change rarely and NOTIFY `sieve_cdn_lenses` (`projectId/identifier`) when they do. */
function lensCache(): NotifiedCache<CdnLens | null> {
  return processSingleton(
    "cdn-lenses",
    () => new NotifiedCache<CdnLens | null>({ channel: "sieve_cdn_lenses", ttlMs: 60_000, maxEntries: 10_000, keysOf: (payload) => [payload] }),
  );
}

/** The project's own lens as cached now (undefined: not cached), for the hot path's validity check. */
export function peekOwnLens(projectId: string, identifier: string): { value: CdnLens | null } | undefined {
  return lensCache().get(`${projectId}/${identifier}`);
}

export async function findLens(projectId: string, identifier: string): Promise<CdnLens | null> {
  const cache = lensCache();
  const key = `${projectId}/${identifier}`;
  const cached = cache.get(key);
  const own = cached ? cached.value : await loadLens(cache, key, projectId, identifier);
  return own ?? builtinLens(identifier) ?? null;
}

/** The lens a selector names, or 400 asset/invalid-transform when it is unknown or inactive. */
export async function requireActiveLens(projectId: string, identifier: string): Promise<CdnLens> {
  const lens = await findLens(projectId, identifier);
  if (!lens || !lens.active) throw new ApiError("asset/invalid-transform", `Unknown lens "@${identifier}"${lens ? " (it is inactive)" : ""}.`);
  return lens;
}

async function loadLens(cache: NotifiedCache<CdnLens | null>, key: string, projectId: string, identifier: string): Promise<CdnLens | null> {
  const generation = cache.currentGeneration();
  const { rows } = await sqlPool().query<CdnLens>({ name: "sieve-cdn-lens", text: SELECT_CDN_LENS, values: [projectId, identifier] });
  const lens = rows[0] ?? null;
  cache.set(key, lens, generation);
  return lens;
}
