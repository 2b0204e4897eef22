import crypto from "node:crypto";
import { derivedContentPrefix } from "@/lib/assets/storage-keys";
import type { ChildOutcome } from "@/lib/assets/processing/outcome";
import { storage } from "@/lib/storage";
import type { Report } from "../report";

/**
 * Children extracted from an asset (OCR text of an image, a document's text and images). Their
 * ids derive from the parent and a per-parent key, and their bytes live under the parent's derived
 * prefix, so re-running an analysis overwrites instead of duplicating, and deleting the parent's
 * content removes theirs.
 */
export type ChildDraft = Omit<ChildOutcome, "status" | "flagged" | "moderationAction" | "rejectionNote" | "report"> & { report: Report };

export function childId(parentId: string, derivedKey: string): string {
  const h = crypto.createHash("sha256").update(`${parentId}:${derivedKey}`).digest("hex");
  // A version-8 (custom) UUID: stable for the same parent and key.
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export async function storeChild(
  parent: { id: string; projectId: string },
  child: Omit<ChildDraft, "id" | "storageId" | "sizeInBytes" | "checksums"> & { bytes: Buffer },
): Promise<ChildDraft> {
  const { bytes, ...rest } = child;
  const storageId = `${derivedContentPrefix(parent.projectId, parent.id)}children/${child.derivedKey}`;
  const stored = await storage().put(storageId, bytes, { contentType: child.fileFormat });
  return { ...rest, id: childId(parent.id, child.derivedKey), storageId, sizeInBytes: stored.sizeInBytes, checksums: { sha256: stored.sha256, md5: stored.md5 } };
}

/** A text child (OCR text of an image, a document's text) with the report of its classified text. */
export function storeTextChild(
  parent: { id: string; projectId: string; name: string },
  derivedKey: string,
  text: string,
  report: Report,
): Promise<ChildDraft> {
  return storeChild(parent, {
    derivedKey,
    name: `${parent.name} (text)`,
    type: "plaintext_document",
    fileFormat: "text/plain",
    fileExtension: "txt",
    imageData: null,
    extractedText: text,
    report,
    bytes: Buffer.from(text, "utf8"),
  });
}
