import { ApiError } from "@/lib/core/errors";

/** The deepest nesting of objects and arrays a JSON body may have (docs/api.md "Requests in general"). */
export const MAX_JSON_DEPTH = 64;

/**
 * Hands the request body to `onChunk` chunk by chunk, refusing it as soon as it passes `maxBytes`
 * (a declared Content-Length over it before reading anything). On any error the body is cancelled.
 */
export async function forEachBodyChunk(request: Request, maxBytes: number, onChunk: (chunk: Uint8Array) => void): Promise<void> {
  const declared = Number(request.headers.get("content-length") ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) throw bodyTooLarge(maxBytes);
  if (!request.body) return;
  const reader = request.body.getReader();
  try {
    let total = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) throw bodyTooLarge(maxBytes);
      onChunk(value);
    }
  } catch (error) {
    await reader.cancel().catch(() => undefined);
    throw error;
  }
}

/** Reads the whole request body, refusing it as soon as it passes `maxBytes` (never buffers more). */
export async function readBodyCapped(request: Request, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  await forEachBodyChunk(request, maxBytes, (chunk) => chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)));
  return Buffer.concat(chunks);
}

export function bodyTooLarge(maxBytes: number, detail = ""): ApiError {
  return new ApiError("request/body-too-large", `The request body is larger than ${maxBytes} bytes${detail}.`);
}

export function jsonTooDeep(maxDepth: number): ApiError {
  return new ApiError(
    "request/validation-failed",
    `Invalid request: the JSON body is nested more than ${maxDepth} levels deep (objects and arrays); at most ${maxDepth} are allowed.`,
  );
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Refuses JSON nested deeper than `maxDepth` objects/arrays before anything parses it (JSON.parse
 * and zod recurse, so thousands of levels would overflow the stack). One pass, no recursion; string
 * contents are skipped so brackets inside them do not count. Not a validator: JSON.parse still is.
 */
export function assertJsonDepth(raw: Uint8Array, maxDepth = MAX_JSON_DEPTH): void {
  let depth = 0;
  for (let i = 0; i < raw.length; i++) {
    const byte = raw[i];
    if (byte === QUOTE) {
      i = endOfString(raw, i + 1);
    } else if (byte === 0x7b || byte === 0x5b) {
      if (++depth > maxDepth) throw jsonTooDeep(maxDepth);
    } else if ((byte === 0x7d || byte === 0x5d) && depth > 0) {
      depth--;
    }
  }
}

/** The index of the quote closing a string whose contents start at `start` (or the end of the input). */
function endOfString(raw: Uint8Array, start: number): number {
  for (let i = start; i < raw.length; i++) {
    if (raw[i] === BACKSLASH) i++;
    else if (raw[i] === QUOTE) return i;
  }
  return raw.length;
}

/** Parses a JSON body; an empty body is `undefined` so the schema reports what is missing. */
export function parseJsonBody(raw: Buffer, maxDepth = MAX_JSON_DEPTH): unknown {
  if (raw.length === 0) return undefined;
  assertJsonDepth(raw, maxDepth);
  try {
    return JSON.parse(raw.toString("utf8"));
  } catch (error) {
    const detail = error instanceof Error ? error.message : "";
    throw new ApiError("request/malformed-json", `The request body is not valid JSON${detail ? `: ${detail}` : "."}`);
  }
}
