import { fileTypeFromBuffer } from "file-type";
import type { z } from "zod";
import { takeEarlyJudgement } from "@/lib/assets/processing/early-judgement";
import { keepsContent, type LockedAsset, type PreviewImage } from "@/lib/assets/processing/outcome";
import type { ProcessAssetData } from "@/lib/assets/processing/request";
import { frameThumbnailKey, previewContentKey } from "@/lib/assets/storage-keys";
import { errorMessage } from "@/lib/core/errors";
import { asForeground } from "@/lib/core/foreground";
import { db } from "@/lib/db/client";
import type { Asset as AssetRow } from "@/lib/db/generated/client";
import { labelSourceJpeg } from "@/lib/media/label-source";
import { imagePreview, PREVIEW_MIME_TYPE, rawPreview, type RenderedPreview } from "@/lib/media/preview";
import { websiteCardPreview } from "@/lib/media/preview-card";
import { pdfFirstPagePreview, videoPosterPreview } from "@/lib/media/preview-tools";
import { decodeBody } from "@/lib/media/website";
import { storage } from "@/lib/storage";
import { resolveThresholds, thresholdOverridesSchema } from "../policy";
import { buildReport, CATEGORIES, type Category, type CategoryThresholds, type Report } from "../report";
import { decodeTextForAnalysis, textLike } from "../text/decode";
import { analyzeDocumentFile, analyzeWebsite, canAnalyzeDocument } from "./analyze-documents";
import { analyzeMediaFile } from "./analyze-media";
import { storeTextChild, type ChildDraft } from "./children";
import { ContentMissingError, MAX_TEXT_BYTES, readAssetBytes, withContentFile } from "./content";
import type { HoldFinding } from "./hash-hold";
import type { ImageInput } from "./image-input";
import { imageWorkOf, judgeImageBytes, storeLabelCopies, type ImageWork, type JudgedImage, type LabelCopies, type LabelSources } from "./image-judgement";
import { svgText } from "./svg-text";
import { mergeJudgements } from "./judgements";
import { ocrTextPart } from "./ocr";
import { classifyPart, labelsOf, unavailablePart, type Part } from "./parts";
import { unanalysedParts, type Unanalysed } from "./unanalysed";

/**
 * The analysis: reads an asset's content, runs the configured providers on each part of it and
 * builds the report. Besides storing extracted children's bytes (at keys derived from the parent,
 * so a re-run overwrites), it changes nothing: finishProcessing (decision.ts) applies the result.
 * Content is judged by its bytes: text-like bytes are judged as text whatever the declared type
 * (an image that is not one, an unknown "binary" that is text), decoded by BOM or byte pattern.
 * What could not be judged is listed in `unanalysed` (and the report's notes): the decision fails
 * closed on it.
 *
 * Retained content also gets its preview here, where the bytes are at hand (stored at
 * previewContentKey, so a re-run overwrites): images, a PDF's first page, a video's poster frame, a
 * website's card. A preview that fails is a note (`notes.preview.error`), never a moderation failure.
 */
export interface Analysis {
  report: Report;
  extractedText: string | null;
  labels: string[];
  hold: HoldFinding | null;
  children: ChildDraft[];
  unanalysed: Unanalysed[];
  /** Absent in analyses serialized before previews existed. */
  preview?: PreviewImage | null;
  /** Downscaled copies stored for the labelling step after the decision (images, video frames). */
  labelSources?: LabelSources | null;
}

export type { LabelSources };

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
  /** Whole parts no analyser could read (unavailable classifier parts are added from `parts`). */
  unanalysed: Unanalysed[];
  preview?: PreviewOutcome | null;
  labelSources?: LabelSources | null;
}

const empty = (): Collected => ({ parts: [], extractedText: null, labels: [], hold: null, children: [], notes: {}, unanalysed: [] });

type PreviewOutcome = { image: PreviewImage } | { error: string };
/** Renders and stores the asset's preview; never rejects. Passed as null when the content is not retained. */
type MakePreview = (source: PreviewImage["source"], render: () => Promise<RenderedPreview>) => Promise<PreviewOutcome>;

function previewerFor(row: Row): MakePreview {
  const key = previewContentKey(row.projectId, row.id);
  return async (source, render) => {
    try {
      const rendered = await render();
      const stored = await storage().put(key, rendered.data, { contentType: PREVIEW_MIME_TYPE });
      const { width, height } = rendered;
      return { image: { fileFormat: PREVIEW_MIME_TYPE, width, height, sizeInBytes: stored.sizeInBytes, source, generation: row.processingGeneration } };
    } catch (error) {
      // An earlier generation's preview must not outlive the record that describes it.
      await storage().delete(key).catch(() => undefined);
      return { error: errorMessage(error) };
    }
  };
}

/** Best effort, as previews are: a frame that cannot be stored is only missing from the timeline. */
async function keepFrameThumbnails(row: Row, frames: readonly Buffer[]): Promise<void> {
  await Promise.all(
    frames.map((jpeg, index) => storage().put(frameThumbnailKey(row.projectId, row.id, index), jpeg, { contentType: "image/jpeg" }).catch(() => undefined)),
  );
}

/** The labelling copies of this processing generation; a failure is a note (storeLabelCopies). */
async function keepLabelSources(row: Row, images: () => Promise<Buffer[]>, frames: boolean, notes: Record<string, unknown>): Promise<LabelSources | null> {
  return noted(await storeLabelCopies(labelTarget(row), images, frames), notes);
}

function noted(copies: LabelCopies, notes: Record<string, unknown>): LabelSources | null {
  if (copies.error !== null) notes.labels = { error: copies.error };
  return copies.sources;
}

const labelTarget = (row: Row) => ({ projectId: row.projectId, assetId: row.id, generation: row.processingGeneration });

/** Runs a preview beside the analysis and waits for both; the analysis's failure wins. */
async function withPreview<T>(analysis: Promise<T>, preview: Promise<PreviewOutcome> | undefined): Promise<[T, PreviewOutcome | null]> {
  const [result, made] = await Promise.allSettled([analysis, preview ?? null]);
  if (result.status === "rejected") throw result.reason;
  return [result.value, made.status === "fulfilled" ? made.value : null];
}

/** How much of non-text content is sniffed for text. */
const SNIFF_BYTES = 64 * 1024;
const ALL_CATEGORIES: Category[] = [...CATEGORIES];

function ocrEnabled(row: Pick<Row, "processingOptions">): boolean {
  const options = row.processingOptions as { image?: { ocrEnabled?: boolean | null } | null } | null;
  return options?.image?.ocrEnabled === true;
}

/** `read`: the asset's bytes when the caller has them already. */
async function analyzeText(row: Row, reason?: string, read?: Buffer): Promise<Collected> {
  const out = empty();
  const bytes = read?.subarray(0, MAX_TEXT_BYTES) ?? (await readAssetBytes(row, MAX_TEXT_BYTES)) ?? Buffer.alloc(0);
  if (row.sizeInBytes !== null && Number(row.sizeInBytes) > MAX_TEXT_BYTES) out.notes.truncatedAtBytes = MAX_TEXT_BYTES;
  const decoded = decodeTextForAnalysis(bytes);
  out.notes.text = { encoding: decoded.encoding, ...(decoded.controlShare > 0 && { controlCharacters: "replaced by spaces" }), ...(reason && { judgedAsText: reason }) };
  out.parts.push(await classifyPart("text", { kind: "text", text: decoded.text }));
  return out;
}

/** `work`: the judgement started early (image-judgement.ts), else started here. */
async function analyzeImage(row: Row, bytes: Buffer, thresholds: CategoryThresholds, previewer: MakePreview | null, work?: ImageWork): Promise<Collected> {
  const out = empty();
  const judging = work ?? judgeImageBytes(bytes, row.fileFormat ?? "application/octet-stream", row.imageData as { width: number; height: number } | null);
  const input = await judging.input;
  if (!input.ok) {
    out.notes.image = { undecodable: input.reason };
    out.parts.push(unavailablePart("image", "image", { reason: input.reason }));
    out.unanalysed.push({ part: "image", check: "hash-lists", reason: input.reason });
    return out;
  }
  // From the image as judged (decoded or downscaled already when that was needed), beside the judging.
  const render = () => (input.pixels ? rawPreview(input.pixels) : imagePreview(input.data));
  // An early judgement stored the copies of the first generation; a later one makes its own.
  const copy = (judging.labelCopies ?? Promise.resolve(null)).then((early) =>
    early?.generation === row.processingGeneration
      ? noted(early, out.notes)
      : keepLabelSources(row, async () => [await labelSourceJpeg(input.data)], false, out.notes),
  );
  // `judged` is null only when the input failed, handled above.
  const judged = judging.judged.then((result) => collectJudged(row, bytes, input, result!, thresholds, out));
  const [collected, preview] = await withPreview(judged, previewer?.("image", render));
  return { ...collected, preview, labelSources: await copy };
}

async function collectJudged(
  row: Row,
  bytes: Buffer,
  input: ImageInput & { ok: true },
  { image, hashes }: JudgedImage,
  thresholds: CategoryThresholds,
  out: Collected,
): Promise<Collected> {
  if (input.downscaledFrom || input.convertedFrom) {
    out.notes.image = { ...(input.downscaledFrom && { judgedAt: "downscaled", original: input.downscaledFrom }), ...(input.convertedFrom && { decodedFrom: input.convertedFrom }) };
  }
  out.parts.push(image);
  out.labels.push(...labelsOf(image));
  if (hashes.ok) out.hold = hashes.finding;
  else out.unanalysed.push({ part: "image", check: "hash-lists", reason: hashes.error });
  const drawnText = row.fileFormat === "image/svg+xml" ? svgText(bytes) : null;
  if (drawnText) {
    out.parts.push(await classifyPart("svg-text", { kind: "text", text: drawnText }));
    out.extractedText = drawnText;
  }
  if (!ocrEnabled(row)) return out;
  const ocr = await ocrTextPart(input.data, "ocr-text");
  out.notes.ocr = ocr.notes;
  if (ocr.part) out.parts.push(ocr.part);
  if (ocr.text && ocr.part) {
    out.extractedText = ocr.text;
    const report = buildReport({ categories: ocr.part.judgements, thresholds, notes: ocr.part.notes });
    out.children.push(await storeTextChild(row, "ocr-text", ocr.text, report));
  }
  return out;
}

/**
 * Content that is not declared as text but whose bytes are: no known magic number and text-like.
 * SVG stays an image (it is rendered and judged as one; one that cannot be rendered fails closed).
 */
async function textDespiteType(row: Row, bytes: Buffer): Promise<string | null> {
  if (row.fileFormat === "image/svg+xml") return null;
  const head = bytes.subarray(0, SNIFF_BYTES);
  if (head.length === 0 || (await fileTypeFromBuffer(head)) || !textLike(head)) return null;
  return `declared ${row.fileFormat ?? "without a type"}, but the bytes are text`;
}

async function analyzeByType(row: Row, thresholds: CategoryThresholds, previewer: MakePreview | null): Promise<Collected> {
  if (row.type === "plaintext_document") return analyzeText(row);
  if (row.type === "image") {
    // Images are read whole once: the text sniff and the image analysis share the bytes (those a
    // queue=false upload judged early are in memory already, with their judgement).
    const early = takeEarlyJudgement(row);
    const bytes = early?.bytes ?? (await readAssetBytes(row));
    if (!bytes) throw new ContentMissingError(`asset ${row.id} has no stored content`);
    const asText = await textDespiteType(row, bytes);
    return asText ? analyzeText(row, asText, bytes) : analyzeImage(row, bytes, thresholds, previewer, early ? imageWorkOf(early.work) : undefined);
  }
  if (row.type !== "website") {
    const head = await readAssetBytes(row, SNIFF_BYTES);
    const asText = head ? await textDespiteType(row, head) : null;
    if (asText) return analyzeText(row, asText);
  }
  switch (row.type) {
    case "video":
    case "audio":
      return withContentFile(row, async (file) => {
        const m = await analyzeMediaFile(file, { video: row.type === "video", ocr: ocrEnabled(row) });
        const poster = row.type === "video" && m.probe.hasVideo ? previewer : null;
        const preview = await poster?.("video-frame", () => videoPosterPreview(file, { probe: m.probe }));
        // Retained like the preview: the frames reviewers see beside the report's timeline.
        if (previewer) await keepFrameThumbnails(row, m.frames);
        const labelSources = m.frames.length > 0 ? await keepLabelSources(row, async () => m.frames, true, m.notes) : null;
        return { ...empty(), parts: m.parts, labels: m.labels, hold: m.hold, extractedText: m.transcript, notes: m.notes, media: m.media, preview, labelSources };
      });
    case "multimedia_document":
      if (!canAnalyzeDocument(row.fileFormat)) return unreadable(`no text or image extraction for ${row.fileFormat} documents`);
      return withContentFile(row, async (file) => {
        // Only PDFs have a page renderer here (pandoc's formats would need an office suite).
        const firstPage = row.fileFormat === "application/pdf" ? previewer?.("pdf-page", () => pdfFirstPagePreview(file)) : undefined;
        const [document, preview] = await withPreview(analyzeDocumentFile(file, row, thresholds), firstPage);
        return { ...empty(), ...document, preview };
      });
    case "website": {
      const page = row.storageId ? await readAssetBytes(row, MAX_TEXT_BYTES) : null;
      // Decoded like a fetched page: byte-order mark, <meta charset>, else UTF-8.
      const html = page ? decodeBody(page, null, true).text : null;
      const { page: read, ...website } = await analyzeWebsite(html, row.sourceUrl);
      const preview = read ? await previewer?.("website", () => websiteCardPreview({ title: read.title, host: hostOf(read.url), text: read.text })) : null;
      return { ...empty(), ...website, preview };
    }
    default:
      return unreadable(`no analyser reads ${row.fileFormat ?? "untyped"} content, and its bytes are not text`);
  }
}

function hostOf(url: string | null): string | null {
  if (!url) return null;
  try {
    return new URL(url).host || null;
  } catch {
    return null;
  }
}

/** Why an asset whose analysis judged no category at all fails closed. */
const NOTHING_JUDGED = "no category could be judged: no text, speech or picture was found that a configured model reads";

/** Content nothing here can read: every category is unjudged. */
function unreadable(reason: string): Collected {
  return { ...empty(), notes: { unsupported: reason }, unanalysed: [{ part: "content", categories: ALL_CATEGORIES, reason }] };
}

/**
 * Null when there is nothing to analyze: the asset was deleted, or it is no longer pending in this
 * processing generation (decided by an earlier attempt whose last part was interrupted, or retried).
 */
export function analyzeAsset(data: ProcessAssetData): Promise<Analysis | null> {
  // Foreground work: the labelling step waits for it to go quiet (lib/core/foreground.ts).
  return asForeground(() => analyze(data));
}

async function analyze(data: ProcessAssetData): Promise<Analysis | null> {
  const row = await db().asset.findUnique({ where: { id: data.assetId }, include: { project: true } });
  if (!row || row.status !== "pending" || row.processingGeneration !== data.generation) return null;
  const thresholds = resolveThresholds(thresholdOverridesSchema.safeParse(row.project.moderationThresholds).data);
  // A preview of content the client asked us not to keep would be keeping it.
  const retained = keepsContent(row.processingOptions as LockedAsset["processingOptions"], row.project.keepContentByDefault);
  const collected = await analyzeByType(row, thresholds, retained ? previewerFor(row) : null);
  const unanalysed = [...collected.unanalysed, ...unanalysedParts(collected.parts)];
  const categories = mergeJudgements(collected.parts.map((p) => p.judgements));
  // Nothing judged at all (e.g. audio without speech: no model hears sounds) is not a judgement.
  if (unanalysed.length === 0 && ALL_CATEGORIES.every((c) => (categories[c]?.status ?? "not-evaluated") === "not-evaluated")) {
    unanalysed.push({ part: "content", categories: ALL_CATEGORIES, reason: NOTHING_JUDGED });
  }
  if (collected.preview && "error" in collected.preview) collected.notes.preview = { error: collected.preview.error };
  const report = buildReport({
    categories,
    thresholds,
    media: collected.media,
    notes: {
      ...(collected.notes as Record<string, Json>),
      parts: collected.parts.map((p) => p.notes),
      ...(unanalysed.length > 0 && { unanalysed: unanalysed as unknown as Json }),
    },
  });
  return {
    unanalysed,
    report,
    extractedText: collected.extractedText,
    labels: [...new Set(collected.labels)],
    hold: collected.hold,
    children: collected.children,
    preview: collected.preview && "image" in collected.preview ? collected.preview.image : null,
    labelSources: collected.labelSources ?? null,
  };
}
