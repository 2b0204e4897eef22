/** A new asset before it is stored: what the request said, and what storing its bytes found. */
import type { AssetType } from "@/lib/assets/content-type";
import type { Checksums, ImageData } from "@/lib/assets/field-schemas";
import type { AssetCommonFields } from "@/lib/assets/schemas";

/** What the caller knows about a new asset before its bytes are read. */
export interface AssetDraft {
  projectId: string;
  /** Owner of the project: uploads count against this user's allowance. */
  ownerUserId: string;
  fields: AssetCommonFields;
  /** `queue` of the request: true = classify in the background. */
  queued: boolean;
  sourceUrl?: string | null;
}

export interface StoredContentFacts {
  id: string;
  type: AssetType;
  fileFormat: string;
  fileExtension: string | null;
  sizeInBytes: bigint;
  checksums: Checksums;
  imageData?: ImageData;
  storageId: string;
}

/** The columns a new asset takes from its draft (the request's fields). */
export function draftColumns(draft: AssetDraft) {
  const f = draft.fields;
  return {
    projectId: draft.projectId,
    name: f.name,
    description: f.description ?? null,
    visibility: f.visibility ?? null,
    metadata: f.metadata ?? undefined,
    externalId: f.externalId ?? null,
    externalUrl: f.externalUrl ?? null,
    folderId: f.folderId ?? null,
    processingOptions: f.processingOptions ?? undefined,
    sourceUrl: draft.sourceUrl ?? null,
    queued: draft.queued,
  };
}
