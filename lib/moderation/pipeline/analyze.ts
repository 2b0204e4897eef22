import type { z } from "zod";
import { db } from "@/lib/db/client";
import type { Asset as AssetRow } from "@/lib/db/generated/client";
import { resolveThresholds, thresholdOverridesSchema } from "../policy";
import { buildReport, type CategoryThresholds, type Report } from "../report";
import { analyzeDocumentFile, analyzeWebsite, canAnalyzeDocument } from "./analyze-documents";
import { analyzeMediaFile } from "./analyze-media";
import { storeTextChild, type ChildDraft } from "./children";
import { ContentMissingError, MAX_TEXT_BYTES, readAssetBytes, withContentFile } from "./content";
import { findHashHold, type HoldFinding } from "./hash-hold";
import type { ProcessAssetData } from "@/lib/assets/processing/request";
import { mergeJudgements } from "./judgements";
import { ocrTextPart } from "./ocr";
import { classifyPart, labelsOf, type Part } from "./parts";

/**
 * The analysis: reads an asset's content, runs the configured providers on each part of it and
 * builds the report. Besides storing extracted children's bytes (at keys derived from the parent,
 * so a re-run overwrites), it changes nothing: finishProcessing (decision.ts) applies the result.
 */
export interface Analysis {
  report: Report;
  extractedText: string | null;
  labels: string[];
  hold: HoldFinding | null;
  children: ChildDraft[];
}

type Json = z.core.util.JSONType;
type Row = AssetRow;

interface Collected {
  parts: Part[];
  extractedText: string | null;
  labels: string[];
  hold: HoldFinding | null;
  children: ChildDraft[];
  notes: Record<string, unknown>;
  media?: Parameters<typeof buildReport>[0]["media"];
}

const empty = (): Collected => ({ parts: [], extractedText: null, labels: [], hold: null, children: [], notes: {} });

function ocrEnabled(row: Pick<Row, "processingOptions">): boolean {
  const options = row.processingOptions as { image?: { ocrEnabled?: boolean | null } | null } | null;
  return options?.image?.ocrEnabled === true;
}

async function analyzeText(row: Row): Promise<Collected> {
  const out = empty();
  const bytes = (await readAssetBytes(row, MAX_TEXT_BYTES)) ?? Buffer.alloc(0);
  if (row.sizeInBytes !== null && Number(row.sizeInBytes) > MAX_TEXT_BYTES) out.notes.truncatedAtBytes = MAX_TEXT_BYTES;
  out.parts.push(await classifyPart("text", { kind: "text", text: bytes.toString("utf8") }));
  return out;
}

async function analyzeImage(row: Row, thresholds: CategoryThresholds): Promise<Collected> {
  const out = empty();
  const bytes = await readAssetBytes(row);
  if (!bytes) throw new ContentMissingError(`asset ${row.id} has no stored content`);
  const image = await classifyPart("image", { kind: "image", data: bytes, mimeType: row.fileFormat ?? "application/octet-stream" });
  out.parts.push(image);
  out.labels.push(...labelsOf(image));
  out.hold = await findHashHold(bytes);
  if (!ocrEnabled(row)) return out;
  const ocr = await ocrTextPart(bytes, "ocr-text");
  out.notes.ocr = ocr.notes;
  if (ocr.part) out.parts.push(ocr.part);
  if (ocr.text && ocr.part) {
    out.extractedText = ocr.text;
    const report = buildReport({ categories: ocr.part.judgements, thresholds, notes: ocr.part.notes });
    out.children.push(await storeTextChild(row, "ocr-text", ocr.text, report));
  }
  return out;
}

async function analyzeByType(row: Row, thresholds: CategoryThresholds): Promise<Collected> {
  switch (row.type) {
    case "plaintext_document":
      return analyzeText(row);
    case "image":
      return analyzeImage(row, thresholds);
    case "video":
    case "audio":
      return withContentFile(row, async (file) => {
        const m = await analyzeMediaFile(file, { video: row.type === "video", ocr: ocrEnabled(row) });
        return { ...empty(), parts: m.parts, labels: m.labels, hold: m.hold, extractedText: m.transcript, notes: m.notes, media: m.media };
      });
    case "multimedia_document":
      if (!canAnalyzeDocument(row.fileFormat)) return { ...empty(), notes: { unsupported: `no text extraction for ${row.fileFormat} documents` } };
      return withContentFile(row, async (file) => ({ ...empty(), ...(await analyzeDocumentFile(file, row, thresholds)) }));
    case "website": {
      const html = row.storageId ? ((await readAssetBytes(row, MAX_TEXT_BYTES))?.toString("utf8") ?? null) : null;
      return { ...empty(), ...(await analyzeWebsite(html, row.sourceUrl)) };
    }
    default:
      return { ...empty(), notes: { unsupported: `no classifier judges ${row.type} content` } };
  }
}

/**
 * Null when there is nothing to analyze: the asset was deleted, or it is no longer pending in this
 * processing generation (decided by an earlier attempt whose last part was interrupted, or retried).
 */
export async function analyzeAsset(data: ProcessAssetData): Promise<Analysis | null> {
  const row = await db().asset.findUnique({ where: { id: data.assetId }, include: { project: true } });
  if (!row || row.status !== "pending" || row.processingGeneration !== data.generation) return null;
  const thresholds = resolveThresholds(thresholdOverridesSchema.safeParse(row.project.moderationThresholds).data);
  const collected = await analyzeByType(row, thresholds);
  const report = buildReport({
    categories: mergeJudgements(collected.parts.map((p) => p.judgements)),
    thresholds,
    media: collected.media,
    notes: { ...(collected.notes as Record<string, Json>), parts: collected.parts.map((p) => p.notes) },
  });
  return {
    report,
    extractedText: collected.extractedText,
    labels: [...new Set(collected.labels)],
    hold: collected.hold,
    children: collected.children,
  };
}
