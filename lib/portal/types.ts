/**
 * The portal's JSON contract (routes under /api/portal): what the browser receives. Types only, so
 * client components import them without pulling server code.
 */
import type { ApiAsset } from "@/lib/assets/serialize";
import type { ApiKeySummary } from "@/lib/auth/api-key-admin";
import type { Permission } from "@/lib/auth/permissions";
import type { ApiConnector, ApiDelivery } from "@/lib/connectors/schemas";
import type { ApiEvent } from "@/lib/events/schemas";
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

/** An API key in the owner console (GET/POST /api/portal/projects/:projectId/keys): never its secret. */
export type PortalApiKey = ApiKeySummary;

export interface CreateApiKeyRequest {
  name: string;
  permissions: Permission[];
  rateLimitPerSecond?: number | null;
}

/** The answer to creating a key: the only time the secret is ever sent. */
export interface CreatedApiKey {
  key: PortalApiKey;
  secret: string;
}

/** A member in the owner console (GET /api/portal/projects/:projectId/members). */
export interface PortalMember {
  userId: string;
  name: string | null;
  email: string;
  role: MemberRoleName;
  /** For role `custom`: the permissions it grants; empty otherwise. */
  permissions: Permission[];
  joinedAt: number;
  /** The project's owner: always an admin, cannot be removed. */
  isOwner: boolean;
}

/** Body of PATCH .../members/:userId and of POST .../invitations. */
export interface RoleRequest {
  role: MemberRoleName;
  /** Required (at least one) for `custom`; absent for the other roles. */
  permissions?: Permission[];
}

/** A pending invitation link (never its token). */
export interface PortalInvitation {
  id: string;
  role: MemberRoleName;
  permissions: Permission[];
  invitedByName: string;
  createdAt: number;
  expiresAt: number;
}

/** The answer to creating an invitation: its link's path (/invite/<token>), sent this once. */
export interface CreatedInvitation {
  invitation: PortalInvitation;
  path: string;
}

/** The events inbox (GET /api/portal/projects/:projectId/events): the API's Event objects, newest first. */
export type InboxEvent = ApiEvent;

export interface InboxPage {
  events: InboxEvent[];
  /** The next (older) page's cursor; null at the end. */
  nextCursor: string | null;
}

export interface UnreadCount {
  unread: number;
  unreadHigh: number;
}

/** A row of the folders page's asset list (GET /api/portal/projects/:projectId/folders/assets). */
export interface FolderAsset {
  id: string;
  name: string;
  type: AssetTypeName;
  status: "uploading" | "pending" | "approved" | "rejected" | "error";
  sizeInBytes: number | null;
  createdAt: number;
  folderId: string | null;
}

export interface FolderAssetPage {
  items: FolderAsset[];
  total: number;
  hasMore: boolean;
}

/** Query of the folder asset list: `folderId` is a folder id or `root` (assets outside any folder). */
export interface FolderAssetFilters {
  folderId: string;
  type?: AssetTypeName;
  status?: FolderAsset["status"];
  name?: string;
  sort?: "createdAt" | "-createdAt" | "updatedAt" | "-updatedAt" | "name" | "-name" | "sizeInBytes" | "-sizeInBytes";
  pageIndex?: number;
  pageSize?: number;
}

/** POST .../folders/assets/move: each asset moved, or refused with the API's code and message. */
export interface MoveAssetsResult {
  moved: string[];
  failed: { assetId: string; code: string; message: string }[];
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
