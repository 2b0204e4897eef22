import { ApiError } from "@/lib/core/errors";
import { MAX_JSON_DEPTH, bodyTooLarge, forEachBodyChunk, jsonTooDeep } from "@/lib/http/body";
import { GrowableBuffer } from "@/lib/http/growable-buffer";
import { JsonByteArrayDecoder, JsonStringDecoder, LargeValueRefused, type LargeValueDecoder } from "@/lib/http/json-large-values";
import type { LargeValue, LargeValueAt, LargeValuePath, PathNode } from "@/lib/http/large-values";

/**
 * Reads a JSON body chunk by chunk with bounded memory. One pass over the bytes caps the nesting
 * depth, and the values at declared *large value* paths (upload content: a string, or an array of
 * byte numbers) are decoded straight into a Buffer as they arrive. What remains, the *structure*,
 * is small: it is parsed with JSON.parse, with `""` / `[]` standing in for each large value, and
 * validated by the endpoint's zod schema as usual; restoreLargeValues() (lib/http/large-values.ts)
 * then hands the decoded bytes to the validated object.
 */

export interface JsonReadOptions {
  maxBytes: number;
  /** Limit of the structure, i.e. the body without its large values. */
  maxStructureBytes: number;
  maxDepth?: number;
  largeValues?: PathNode | null;
  /** Large values up to this many raw bytes stay in the structure (the ordinary JSON.parse path). */
  largeValueThreshold?: number;
  /** Sees every chunk as received (the idempotency fingerprint). */
  onChunk?: (chunk: Uint8Array) => void;
}

export const DEFAULT_LARGE_VALUE_THRESHOLD = 64 * 1024;

/**
 * The limit of a JSON body's structure (all but its large values): it is parsed as a whole, and
 * parsed JSON can take twenty times its size in memory (`[{},{},…]`), so it stays small.
 */
export const MAX_JSON_STRUCTURE_BYTES = 4 * 1024 * 1024;

/** The parsed structure (placeholders where large values were) and the large values. */
export interface JsonRead {
  value: unknown;
  largeValues: LargeValueAt[];
}

export async function readJsonBody(request: Request, options: JsonReadOptions): Promise<JsonRead> {
  const declared = Number(request.headers.get("content-length") ?? NaN);
  const scanner = new JsonScanner(options, Number.isFinite(declared) ? declared : null);
  await forEachBodyChunk(request, options.maxBytes, (chunk) => {
    options.onChunk?.(chunk);
    scanner.feed(chunk);
  });
  const { structure, largeValues } = scanner.end();
  return { value: parseStructure(structure), largeValues };
}

/**
 * The structure is parsed once the scanner has capped its depth (JSON.parse recurses); an empty
 * body is `undefined` so the schema reports what is missing.
 */
function parseStructure(raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  try {
    return JSON.parse(raw.toString("utf8"));
  } catch (error) {
    const detail = error instanceof Error ? error.message : "";
    throw new ApiError("request/malformed-json", `The request body is not valid JSON${detail ? `: ${detail}` : "."}`);
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MAX_TRACKED_KEY_BYTES = 256;

interface Frame {
  isObject: boolean;
  /** Objects: the paths below this object that hold large values, if any. */
  paths: PathNode | null;
  /** Objects: the last key read, and whether a key comes next. */
  key: string | null;
  expectKey: boolean;
}

interface LargeInProgress {
  decoder: LargeValueDecoder;
  kind: LargeValue["kind"];
  path: LargeValuePath;
  /** The raw bytes while they stay under the threshold (then the value stays in the structure). */
  raw: GrowableBuffer | null;
  started: boolean;
}

/**
 * The single pass: tracks strings, depth and object keys (for the large value paths), copies the
 * structure aside and feeds large values to their decoders. It does not validate the structure:
 * JSON.parse does, and a large value is replaced only once its decoder has checked its syntax.
 */
class JsonScanner {
  private readonly frames: Frame[] = [];
  private readonly structure = new GrowableBuffer();
  private readonly largeValues: LargeValueAt[] = [];
  private readonly maxDepth: number;
  private readonly threshold: number;
  private offset = 0;
  private inString = false;
  private stringIsKey = false;
  private escaped = false;
  private keyBytes: number[] | null = null;
  /** The next value starts with the next significant byte; where it may lead. */
  private awaitingValue = true;
  private nextPaths: PathNode | null;
  private nextIsLarge = false;
  private large: LargeInProgress | null = null;

  constructor(
    private readonly options: JsonReadOptions,
    private readonly declaredLength: number | null,
  ) {
    this.maxDepth = options.maxDepth ?? MAX_JSON_DEPTH;
    this.threshold = options.largeValueThreshold ?? DEFAULT_LARGE_VALUE_THRESHOLD;
    this.nextPaths = options.largeValues ?? null;
  }

  feed(chunk: Uint8Array): void {
    let copyFrom = 0;
    let i = 0;
    while (i < chunk.length) {
      if (this.large) {
        const resumeAt = this.continueLarge(chunk, i);
        if (resumeAt < 0) break;
        copyFrom = i = resumeAt; // the value, or what stands for it, is in the structure already
        continue;
      }
      const byte = chunk[i] as number;
      if (this.inString) this.stringByte(byte);
      else if (this.awaitingValue && !isWhitespace(byte) && this.valueStarts(byte)) {
        this.appendStructure(chunk, copyFrom, i);
        continue; // the large value begins at i
      } else this.structuralByte(byte);
      i++;
    }
    if (!this.large) this.appendStructure(chunk, copyFrom, chunk.length);
    this.offset += chunk.length;
  }

  end(): { structure: Buffer; largeValues: LargeValueAt[] } {
    if (this.large) {
      if (!this.large.raw) throw malformed(`the body ends inside the large value at ${this.large.path.join(".")}`, this.offset);
      this.appendStructure(this.large.raw.take());
    }
    return { structure: this.structure.take(), largeValues: this.largeValues };
  }

  private stringByte(byte: number) {
    if (this.escaped) this.escaped = false;
    else if (byte === BACKSLASH) this.escaped = true;
    else if (byte === QUOTE) {
      this.inString = false;
      if (this.stringIsKey) this.keyRead();
      return;
    }
    if (this.keyBytes && this.keyBytes.push(byte) > MAX_TRACKED_KEY_BYTES) this.keyBytes = null;
  }

  /** A value begins with `byte`; true when it is a large value (read from the next feed step). */
  private valueStarts(byte: number): boolean {
    this.awaitingValue = false;
    const paths = this.nextPaths;
    const large = this.nextIsLarge;
    this.nextPaths = null;
    this.nextIsLarge = false;
    if (paths || large) this.forgetEarlierValues(); // a repeated key: JSON.parse keeps the last one
    if (large && (byte === QUOTE || byte === 0x5b)) {
      const kind = byte === QUOTE ? "string" : "bytes";
      if (kind === "bytes") this.push(false, null);
      const decoder = kind === "string" ? new JsonStringDecoder() : new JsonByteArrayDecoder();
      this.large = { decoder, kind, path: this.currentPath(kind === "bytes" ? 1 : 0), raw: new GrowableBuffer(), started: false };
      return true;
    }
    if (byte === 0x7b) this.nextPaths = paths; // read by structuralByte's push
    return false;
  }

  private structuralByte(byte: number) {
    const top = this.frames[this.frames.length - 1];
    switch (byte) {
      case QUOTE:
        this.inString = true;
        this.stringIsKey = top?.isObject === true && top.expectKey;
        this.keyBytes = this.stringIsKey ? [] : null;
        break;
      case 0x7b:
        this.push(true, this.nextPaths);
        this.nextPaths = null;
        break;
      case 0x5b:
        this.push(false, null);
        break;
      case 0x7d:
      case 0x5d:
        this.frames.pop();
        break;
      case 0x3a:
        if (top?.isObject) this.awaitValueOf(top);
        break;
      case 0x2c:
        if (top?.isObject) top.expectKey = true;
        break;
    }
  }

  private push(isObject: boolean, paths: PathNode | null) {
    if (this.frames.length >= this.maxDepth) throw jsonTooDeep(this.maxDepth);
    this.frames.push({ isObject, paths, key: null, expectKey: isObject });
  }

  private keyRead() {
    const top = this.frames[this.frames.length - 1] as Frame;
    top.expectKey = false;
    top.key = null;
    if (!this.keyBytes) return;
    try {
      top.key = JSON.parse(`"${Buffer.from(this.keyBytes).toString("utf8")}"`) as string;
    } catch {
      // Malformed: JSON.parse of the structure reports it.
    }
    this.keyBytes = null;
  }

  private awaitValueOf(object: Frame) {
    this.awaitingValue = true;
    const node = object.key === null ? undefined : object.paths?.children.get(object.key);
    this.nextPaths = node && node.children.size > 0 ? node : null;
    this.nextIsLarge = node?.large === true;
  }

  /** Object keys from the root to the value being read; `skip` leaves out frames pushed for it. */
  private currentPath(skip: number): LargeValuePath {
    return this.frames.slice(0, this.frames.length - skip).map((frame) => frame.key ?? "");
  }

  private forgetEarlierValues() {
    if (this.largeValues.length === 0) return;
    const path = this.currentPath(0);
    const within = (other: LargeValuePath) => path.every((key, index) => other[index] === key);
    for (let index = this.largeValues.length - 1; index >= 0; index--) {
      if (within((this.largeValues[index] as LargeValueAt).path)) this.largeValues.splice(index, 1);
    }
  }

  /** Feeds the large value from `i`; returns where the structure resumes, or -1 when the value goes on. */
  private continueLarge(chunk: Uint8Array, i: number): number {
    const large = this.large as LargeInProgress;
    const from = large.started ? i : i + 1; // past the opening quote or bracket
    large.started = true;
    let end: number;
    try {
      end = large.decoder.feed(chunk, from);
    } catch (error) {
      if (!(error instanceof LargeValueRefused)) throw error;
      return this.refuseLarge(large, chunk, i, error);
    }
    const stop = end < 0 ? chunk.length : end;
    if (large.raw) {
      large.raw.append(chunk, i, stop);
      if (large.raw.length > this.threshold) this.commitLarge(large, stop);
    }
    if (end < 0) return -1;
    if (large.raw) {
      this.appendStructure(large.raw.take());
    } else {
      this.appendStructure(Buffer.from(large.kind === "string" ? '""' : "[]"));
      this.largeValues.push({ kind: large.kind, path: large.path, bytes: large.decoder.out.take() });
    }
    if (large.kind === "bytes") this.frames.pop();
    this.large = null;
    return end;
  }

  /** Past the threshold the raw copy goes; the output is sized for the rest of the declared body. */
  private commitLarge(large: LargeInProgress, consumed: number) {
    large.raw = null;
    if (this.declaredLength === null) return;
    const remaining = Math.max(0, this.declaredLength - this.offset - consumed);
    large.decoder.out.reserve(large.kind === "string" ? remaining : Math.ceil(remaining / 2));
  }

  /**
   * A large value the decoders cannot take: under the threshold it goes back into the structure
   * as sent (so JSON.parse and zod answer exactly as for any body); past it, the request fails.
   */
  private refuseLarge(large: LargeInProgress, chunk: Uint8Array, i: number, refusal: LargeValueRefused): number {
    if (!large.raw) {
      if (refusal.reason === "syntax") throw malformed(refusal.detail, this.offset + refusal.index);
      const at = ["body", ...large.path, String(refusal.element)].join(".");
      throw new ApiError("request/validation-failed", `Invalid request: ${at}: expected an integer from 0 to 255`);
    }
    this.appendStructure(large.raw.take());
    this.appendStructure(chunk, i, refusal.index);
    if (large.kind === "string") {
      this.inString = true;
      this.stringIsKey = false;
      this.keyBytes = null;
      this.escaped = refusal.afterBackslash;
    }
    this.large = null;
    return refusal.index;
  }

  private appendStructure(bytes: Uint8Array, start = 0, end = bytes.length) {
    if (end <= start) return;
    this.structure.append(bytes, start, end);
    const limit = this.options.maxStructureBytes;
    if (this.structure.length > limit) {
      throw bodyTooLarge(limit, this.options.largeValues ? " apart from its inline content; send large content as a raw or multipart upload" : "");
    }
  }
}

function isWhitespace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

function malformed(detail: string, offset: number): ApiError {
  return new ApiError("request/malformed-json", `The request body is not valid JSON: ${detail} at byte ${offset}.`);
}
