/**
 * The portal's JSON contract (routes under /api/portal): what the browser receives. Types only, so
 * client components import them without pulling server code.
 */
import type { ApiAsset } from "@/lib/assets/serialize";
import type { Permission } from "@/lib/auth/permissions";
import type { ApiConnector, ApiDelivery } from "@/lib/connectors/schemas";
import type { ApiLens } from "@/lib/lenses/schemas";
import type { Category, Likelihood } from "@/lib/moderation/report";

export type { ApiAsset };
export type { Category, Likelihood };

export type MemberRoleName = "admin" | "member" | "viewer" | "custom";

export interface PortalUser {
  id: string;
  email: string;
  name: string | null;
}

export interface PortalProject {
  id: string;
  name: string;
  role: MemberRoleName;
  /** What this user may do in the project (the same permission names API keys use). */
  permissions: Permission[];
}

/** Why an asset is in the review queue. */
export type QueueReason = "rejected" | "error" | "alerted";
export type QueueOrder = "newest" | "oldest";
/** The API's asset types (lib/assets/schemas.ts ASSET_TYPES). */
export type AssetTypeName = "image" | "video" | "audio" | "plaintext-document" | "multimedia-document" | "website" | "file";

/** Query string of GET /api/portal/projects/:projectId/queue (all optional). */
export interface QueueQuery {
  order?: QueueOrder;
  type?: AssetTypeName;
  /** Only assets whose report has this category at `likelihood` or above (default `possible`). */
  category?: Category;
  likelihood?: Likelihood;
  /** A folder id, or `root` for assets outside any folder. */
  folderId?: string;
  reason?: QueueReason;
  /** ISO 8601 date or date-time bounds on createdAt (from inclusive, to exclusive). */
  from?: string;
  to?: string;
  cursor?: string;
  /** 1–100, default 25. */
  limit?: number;
}

export interface QueueItem {
  asset: ApiAsset;
  /** Why it needs a decision; null once it no longer does (e.g. decided by someone else meanwhile). */
  reason: QueueReason | null;
  /** The report's highest-scoring judged category, if any. */
  topCategory: { category: Category; likelihood: Likelihood; score: number } | null;
  /** CDN URLs readable with the portal session (null when the asset has no such media). */
  previewUrl: string | null;
  contentUrl: string | null;
  /** Whether `approve` is possible (only a rejected asset, or an alerted one to confirm it). */
  canApprove: boolean;
}

export interface QueuePage {
  items: QueueItem[];
  nextCursor: string | null;
}

export interface PortalEvent {
  id: string;
  type: string;
  title: string;
  description: string | null;
  severity: string;
  createdAt: number;
  facts: { key: string; value: unknown }[];
}

export interface AssetDetail {
  item: QueueItem;
  /** True when the asset is currently in the review queue. */
  inQueue: boolean;
  children: QueueItem[];
  events: PortalEvent[];
  folder: { id: string; name: string } | null;
  /**
   * For a video with retained content: a thumbnail URL per sampled frame, in the order of the
   * report's `frame` segments (segment i of source `frame` ↔ frameUrls[i]); empty otherwise.
   */
  frameUrls: string[];
}

export interface ReviewPreferences {
  /** Show media unblurred and in colour by default (default false). */
  revealMediaByDefault: boolean;
  /** After this many decisions in a session the portal suggests a break (default 50; 0 = never). */
  breakReminderAfter: number;
}

export interface ReviewRequest {
  decision: "approve" | "reject";
  note?: string;
}

export interface BulkReviewRequest extends ReviewRequest {
  assetIds: string[];
}

/** A bulk decision runs as a batch; poll GET .../review-batches/:batchId until status is `completed`. */
export interface ReviewBatch {
  id: string;
  status: "queued" | "running" | "completed";
  items: { assetId: string; status: "queued" | "succeeded" | "failed"; code: string | null; message: string | null }[];
  counts: { queued: number; succeeded: number; failed: number };
}

export interface PortalFolder {
  id: string;
  name: string;
  parentId: string | null;
}

/** The error body every portal route answers with (the API's). */
export interface PortalErrorBody {
  message: string;
  code: string;
  traceId: string;
}

// --- Connectors page (/projects/:projectId/connectors): the Connectors API's objects as they are.
export type { ApiConnector as PortalConnector, ApiConnectorWithSecret as PortalConnectorWithSecret, ApiDelivery as PortalDelivery } from "@/lib/connectors/schemas";
export type { CreateConnectorBody as CreateConnectorRequest, UpdateConnectorBody as UpdateConnectorRequest } from "@/lib/connectors/schemas";

export interface PortalConnectorList {
  items: ApiConnector[];
  total: number;
  hasMore: boolean;
  /** False when the server has no SMTP settings: email connectors cannot be created. */
  emailAvailable: boolean;
}

export interface PortalDeliveryPage {
  items: ApiDelivery[];
  total: number;
  hasMore: boolean;
}

// --- Lenses page (/projects/:projectId/lenses).
export type { ApiLens, EnsureLensInput as EnsureLensRequest, LensType } from "@/lib/lenses/schemas";

/** A lens as the page lists it: the API's Lens, or a built-in one (projectId null, read-only). */
export interface PortalLens extends ApiLens {
  builtIn: boolean;
  /** A built-in lens the project replaced with its own lens of the same identifier. */
  shadowed: boolean;
}

export interface PortalLensList {
  lenses: PortalLens[];
  /** Approved images with retained content, which the CDN serves with the portal session. */
  previewAssets: { id: string; name: string }[];
}
