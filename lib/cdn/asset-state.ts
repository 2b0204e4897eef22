import { sqlPool } from "@/lib/db/client";
import { NotifiedCache } from "@/lib/db/notified-cache";
import { processSingleton } from "@/lib/core/singleton";

/**
 * What the CDN checks on every request (serving rules 1–4), read from memory: an asset's status,
 * hold, stored content, visibility and retention. A trigger NOTIFYs `sieve_cdn_assets` on every
 * change of these columns (and on insert and delete, for identifiers that were absent), so a
 * rejection, hold or removal takes effect at once; without the notification connection nothing
 * is cached and every request reads the database.
 */
export interface CdnAsset {
  id: string;
  projectId: string;
  externalId: string | null;
  /** The database's type name: image, video, audio, plaintext_document, multimedia_document, website, file. */
  type: string;
  status: string;
  held: boolean;
  storageId: string | null;
  contentRemoved: boolean;
  visibility: "public" | "private" | null;
  /** processingOptions.keepContentAfterProcessing, else the project's default. */
  keepContent: boolean;
  fileFormat: string | null;
  name: string;
  sizeInBytes: number | null;
  sha256: string | null;
  previewImage: { width?: number; height?: number; generation?: number; sizeInBytes?: number } | null;
}

export const SELECT_CDN_ASSET = `SELECT a.id::text AS id, a.project_id::text AS "projectId", a.external_id AS "externalId",
    a.type::text AS type, a.status::text AS status, a.safety_hold IS NOT NULL AS held, a.storage_id AS "storageId",
    a.storage_deleted_at IS NOT NULL AS "contentRemoved", a.visibility::text AS visibility,
    COALESCE((a.processing_options->>'keepContentAfterProcessing')::boolean, p.keep_content_by_default) AS "keepContent",
    a.file_format AS "fileFormat", a.name, a.size_in_bytes::float8 AS "sizeInBytes", a.checksums->>'sha256' AS sha256,
    a.preview_image AS "previewImage"
  FROM assets a JOIN projects p ON p.id = a.project_id
  WHERE a.project_id = $1::uuid AND (a.id = $2::uuid OR a.external_id = $3)
  ORDER BY (a.id = $2::uuid) IS TRUE DESC LIMIT 1`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Longer identifiers are not cached: the notification carries at most this much of an externalId. */
const MAX_CACHED_IDENTIFIER = 3000;

/** A NOTIFY payload of the assets trigger (migrations 20261124040000_cdn, 20261124060000_cdn_blocked_flag). */
export interface AssetChange {
  id: string;
  projectId: string;
  /** The externalId before and after the change. */
  externalIds: (string | null)[];
  /** The asset can no longer be served: rejected, failed, held or its content removed. */
  blocked: boolean;
}

type Listener = (change: AssetChange | "*") => void;

class AssetStates {
  private readonly listeners = new Set<Listener>();
  readonly cache = new NotifiedCache<CdnAsset | null, AssetChange>({
    channel: "sieve_cdn_assets",
    ttlMs: 60_000,
    maxEntries: 50_000,
    parse: parseChange,
    keysOf: (change) => [change.id, ...change.externalIds].filter((x): x is string => !!x).map((identifier) => cacheKey(change.projectId, identifier)),
    onNotification: (change) => {
      for (const listener of this.listeners) listener(change);
    },
  });

  /** Called with every change ("*": anything may have changed). */
  onChange(listener: Listener): void {
    this.listeners.add(listener);
  }
}

function parseChange(payload: string): AssetChange | null {
  try {
    return JSON.parse(payload) as AssetChange;
  } catch {
    return null;
  }
}

export const cacheKey = (projectId: string, identifier: string) => `${projectId.toLowerCase()}/${identifier}`;

export function assetStates(): AssetStates {
  return processSingleton("cdn-asset-states", () => new AssetStates());
}

/** The asset addressed by id or externalId within the project, or null. */
export async function findCdnAsset(projectId: string, identifier: string): Promise<CdnAsset | null> {
  if (!UUID.test(projectId)) return null;
  const states = assetStates();
  const key = cacheKey(projectId, identifier);
  const cached = states.cache.get(key);
  if (cached) return cached.value;
  const generation = states.cache.currentGeneration();
  const { rows } = await sqlPool().query<CdnAsset>({
    name: "sieve-cdn-asset",
    text: SELECT_CDN_ASSET,
    values: [projectId, UUID.test(identifier) ? identifier : null, identifier],
  });
  const asset = rows[0] ?? null;
  // Notifications name ids in lower case: an upper-case id would be a key nothing invalidates.
  const cacheable = identifier.length <= MAX_CACHED_IDENTIFIER && !(UUID.test(identifier) && identifier !== identifier.toLowerCase());
  if (cacheable) states.cache.set(key, asset, generation);
  return asset;
}
