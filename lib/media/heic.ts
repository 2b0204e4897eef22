import path from "node:path";
import { errorMessage } from "@/lib/core/errors";
import { processSingleton } from "@/lib/core/singleton";
import { WorkerHost, type WorkerAnswer, type WorkerProtocol } from "@/lib/core/worker-host";

/**
 * HEIC/HEIF decoding. sharp's prebuilt libvips reads HEIF headers but has no HEVC decoder, so the
 * pixels come from heic-decode (libheif as wasm) in a worker thread (heic-worker.mjs): it blocks for
 * ~1 s per 12 MP photo, which must not stall the server. One worker, requests in call order (each
 * decode holds a few hundred MB, so running them side by side would multiply that); it is stopped
 * after HEIC_IDLE_MS without work, since wasm memory never shrinks back.
 *
 * The result is raw, upright pixels for sharp: `sharp(data, { raw: { width, height, channels } })`.
 * HEIC rotation and mirroring are applied by libheif; there is no EXIF orientation left to apply.
 */

export type DecodedHeic = { data: Buffer; width: number; height: number; channels: 3 | 4 };

export type HeicDecodeErrorCode =
  /** Not a HEIF file, or not one libheif can read. */
  | "invalid"
  /** More pixels than `maxPixels`; refused before decoding. */
  | "too-large"
  /** The decoder failed, crashed, hung or was shut down. */
  | "failed"
  | "aborted";

export class HeicDecodeError extends Error {
  override readonly name = "HeicDecodeError";
  constructor(readonly code: HeicDecodeErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
  }
}

export interface DecodeHeicOptions {
  /** Width × height above which the image is refused unread. Default HEIC_MAX_PIXELS. */
  maxPixels?: number;
  signal?: AbortSignal;
}

/** 100 MP: above the 48 MP of the largest phone HEICs, far below what would exhaust wasm's 4 GB. */
export const HEIC_MAX_PIXELS = 100_000_000;
/** A decode that has not answered after this long is taken as hung: the worker is replaced. */
export const HEIC_DECODE_TIMEOUT_MS = 60_000;
export const HEIC_IDLE_MS = 30_000;

/** The MIME types whose images need decodeHeic (sharp decodes AVIF, the other HEIF codec, itself). */
export function isHeicMimeType(mimeType: string | null | undefined): boolean {
  return mimeType !== null && mimeType !== undefined && /^image\/hei[cf](-sequence)?$/i.test(mimeType);
}

/** Whether sharp's metadata describes HEVC-coded HEIF, whose pixels need decodeHeic (AV1-coded HEIF is AVIF, sharp's own). */
export function isHevcHeif(meta: { format?: string; compression?: string }): boolean {
  return meta.format === "heif" && meta.compression !== "av1";
}

/** HEVC-coded HEIF brands (ISO/IEC 23008-12); AVIF and the generic `mif1` are left to sharp. */
const HEVC_BRANDS = new Set(["heic", "heix", "heim", "heis", "hevc", "hevx", "hevm", "hevs"]);

/** Whether the bytes are a HEIC file by their `ftyp` box (major brand), whatever the declared type. */
export function isHeicFile(bytes: Uint8Array): boolean {
  if (bytes.length < 12) return false;
  const ascii = (from: number, to: number) => String.fromCharCode(...bytes.subarray(from, to));
  return ascii(4, 8) === "ftyp" && HEVC_BRANDS.has(ascii(8, 12));
}

interface DecodeRequest {
  input: ArrayBuffer;
  maxPixels: number;
}

type DecodeReply =
  | { ok: true; width: number; height: number; channels: 3 | 4; data: ArrayBuffer }
  | { ok: false; code: "invalid" | "too-large"; error: string };

const protocol: WorkerProtocol<DecodeRequest, DecodeReply> = {
  encode: (id, request) => ({ id, ...request }),
  decode: (message): WorkerAnswer<DecodeReply> | null => {
    const reply = message as { id?: unknown; ok?: unknown; code?: unknown; error?: unknown } | null;
    if (typeof reply?.id !== "number") return null;
    if (reply.ok) return { id: reply.id, ok: true, result: reply as unknown as DecodeReply };
    // Bad input is an answer; anything else is a decoder failure (and that worker is replaced).
    if (reply.code === "invalid" || reply.code === "too-large") {
      return { id: reply.id, ok: true, result: { ok: false, code: reply.code, error: String(reply.error) } };
    }
    return { id: reply.id, ok: false, error: String(reply.error) };
  },
};

export function heicWorkerPath(): string {
  return path.resolve(/*turbopackIgnore: true*/ process.cwd(), "lib/media/heic-worker.mjs");
}

// Process-wide, so a module re-evaluation (Next.js dev reloads) reuses the running worker.
const state = processSingleton("media.heic.host", () => ({
  host: new WorkerHost<DecodeRequest, DecodeReply>({
    name: "the HEIC decoder worker",
    script: heicWorkerPath,
    workerOptions: { execArgv: [], name: "heic-decode" },
    protocol,
    requestTimeoutMs: HEIC_DECODE_TIMEOUT_MS,
    // A decode cannot be interrupted: a caller that gives up must not leave the next one waiting.
    onAbandon: "replace",
    replaceAfterError: true,
  }),
  active: 0,
  idleTimer: undefined as NodeJS.Timeout | undefined,
}));

/** Decodes the primary image of a HEIC/HEIF file to raw pixels. Rejects with HeicDecodeError. */
export async function decodeHeic(input: Buffer, options: DecodeHeicOptions = {}): Promise<DecodedHeic> {
  if (options.signal?.aborted) throw new HeicDecodeError("aborted", "HEIC decoding aborted", { cause: options.signal.reason });
  // A copy the worker may own: the caller's buffer stays intact (and may be a slice of a pool).
  const copy = new Uint8Array(input.byteLength);
  copy.set(input);
  state.active++;
  clearTimeout(state.idleTimer);
  let reply: DecodeReply;
  try {
    reply = await state.host.request({ input: copy.buffer, maxPixels: options.maxPixels ?? HEIC_MAX_PIXELS }, { signal: options.signal, transfer: [copy.buffer] });
  } catch (error) {
    if (options.signal?.aborted) throw new HeicDecodeError("aborted", "HEIC decoding aborted", { cause: error });
    throw new HeicDecodeError("failed", `HEIC decoding failed: ${errorMessage(error)}`, { cause: error });
  } finally {
    if (--state.active === 0) {
      state.idleTimer = setTimeout(() => void state.host.shutdown(), HEIC_IDLE_MS);
      state.idleTimer.unref();
    }
  }
  if (!reply.ok) throw new HeicDecodeError(reply.code, reply.error);
  return { data: Buffer.from(reply.data), width: reply.width, height: reply.height, channels: reply.channels };
}

/** Stops the worker now (tests, shutdown); a later decode starts a new one. */
export async function shutdownHeicDecoder(): Promise<void> {
  clearTimeout(state.idleTimer);
  await state.host.shutdown();
}
