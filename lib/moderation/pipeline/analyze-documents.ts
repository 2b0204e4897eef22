import { config } from "@/lib/core/config";
import { extractDocument, PANDOC_FORMATS } from "@/lib/media/document";
import { extractPdf } from "@/lib/media/pdf";
import { fetchWebsiteText, htmlToText } from "@/lib/media/website";
import type { Asset as AssetRow } from "@/lib/db/generated/client";
import { buildReport, type CategoryThresholds } from "../report";
import { storeChild, storeTextChild, type ChildDraft } from "./children";
import { MAX_EXTRACTED_TEXT_CHARS } from "./content";
import { findHashHold, type HoldFinding } from "./hash-hold";
import { classifyPart, labelsOf, type Part } from "./parts";

/**
 * Documents and websites. A document's text and embedded images (PDF, DOCX, ODT, EPUB, RTF) become
 * children, each with its own report; the parent's report combines them. A website's text comes from the stored page, or is
 * fetched SSRF-safely from its URL when no page is stored.
 */
export interface DocumentAnalysis {
  parts: Part[];
  children: ChildDraft[];
  extractedText: string | null;
  labels: string[];
  hold: HoldFinding | null;
  notes: Record<string, unknown>;
  /** A website's page as read, for its preview card. */
  page?: { title: string | null; text: string; url: string | null };
}

const MAX_DOCUMENT_IMAGES = 20;

interface ExtractedDocument {
  text: string;
  images: { index: number; page?: number; mimeType: "image/jpeg" | "image/png"; data: Buffer; width: number; height: number }[];
  notes: Record<string, unknown>;
}

/** PDFs with poppler, word-processing documents and e-books with pandoc. */
async function extract(filePath: string, mimeType: string): Promise<ExtractedDocument> {
  const timeoutMs = config().executor.stepTimeoutMs;
  if (mimeType === "application/pdf") {
    const pdf = await extractPdf(filePath, { maxImages: MAX_DOCUMENT_IMAGES, timeoutMs });
    return {
      text: pdf.text,
      images: pdf.images,
      notes: { pdf: { pageCount: pdf.pageCount, textTruncated: pdf.textTruncated, images: pdf.images.length, imageStats: { ...pdf.imageStats } } },
    };
  }
  const doc = await extractDocument(filePath, mimeType, { maxImages: MAX_DOCUMENT_IMAGES, timeoutMs });
  return { text: doc.text, images: doc.images, notes: { document: { format: doc.format, textTruncated: doc.textTruncated, images: doc.images.length, skippedImages: doc.skippedImages } } };
}

/** Whether a document of this type can be analysed (its text and images extracted). */
export function canAnalyzeDocument(mimeType: string | null): boolean {
  return mimeType === "application/pdf" || (mimeType !== null && mimeType in PANDOC_FORMATS);
}

export async function analyzeDocumentFile(
  filePath: string,
  parent: Pick<AssetRow, "id" | "projectId" | "name" | "fileFormat">,
  thresholds: CategoryThresholds,
): Promise<DocumentAnalysis> {
  const doc = await extract(filePath, parent.fileFormat ?? "");
  const parts: Part[] = [];
  const children: ChildDraft[] = [];
  const labels: string[] = [];
  let hold: HoldFinding | null = null;
  const text = doc.text.trim();
  if (text) {
    const part = await classifyPart("document-text", { kind: "text", text });
    parts.push(part);
    const extracted = text.slice(0, MAX_EXTRACTED_TEXT_CHARS);
    children.push(await storeTextChild(parent, "document-text", extracted, buildReport({ categories: part.judgements, thresholds, notes: part.notes })));
  }
  for (const image of doc.images) {
    const label = image.page === undefined ? `image ${image.index}` : `page ${image.page} image ${image.index}`;
    const part = await classifyPart(label, { kind: "image", data: image.data, mimeType: image.mimeType });
    parts.push(part);
    labels.push(...labelsOf(part));
    hold ??= await findHashHold(image.data, label);
    children.push(
      await storeChild(parent, {
        derivedKey: `document-image-${image.index}`,
        name: `${parent.name} (${label})`,
        type: "image",
        fileFormat: image.mimeType,
        fileExtension: image.mimeType === "image/png" ? "png" : "jpg",
        imageData: { width: image.width, height: image.height },
        extractedText: null,
        report: buildReport({ categories: part.judgements, thresholds, notes: part.notes }),
        bytes: image.data,
      }),
    );
  }
  return { parts, children, extractedText: text ? text.slice(0, MAX_EXTRACTED_TEXT_CHARS) : null, labels, hold, notes: doc.notes };
}

export async function analyzeWebsite(html: string | null, sourceUrl: string | null): Promise<DocumentAnalysis> {
  let page: { title: string | null; description: string | null; text: string; finalUrl?: string };
  const notes: Record<string, unknown> = {};
  if (html !== null) {
    page = htmlToText(html);
    notes.website = { source: "stored page" };
  } else if (sourceUrl) {
    const cfg = config();
    page = await fetchWebsiteText(sourceUrl, {
      timeoutMs: cfg.remoteFetch.timeoutMs,
      maxBytes: cfg.limits.maxUploadBytes,
      allowPrivateNetworks: cfg.allowPrivateNetworks,
      maxRedirects: cfg.remoteFetch.maxRedirects,
    });
    notes.website = { source: sourceUrl };
  } else {
    return { parts: [], children: [], extractedText: null, labels: [], hold: null, notes: { website: "no stored page and no URL" } };
  }
  const text = [page.title, page.description, page.text].filter(Boolean).join("\n\n").trim();
  const parts = text ? [await classifyPart("website-text", { kind: "text", text })] : [];
  const card = { title: page.title, text: [page.description, page.text].filter(Boolean).join("\n\n"), url: page.finalUrl ?? sourceUrl };
  return { parts, children: [], extractedText: text ? text.slice(0, MAX_EXTRACTED_TEXT_CHARS) : null, labels: [], hold: null, notes, page: card };
}
