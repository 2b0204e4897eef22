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

export function bodyTooLarge(maxBytes: number, detail = ""): ApiError {
  return new ApiError("request/body-too-large", `The request body is larger than ${maxBytes} bytes${detail}.`);
}

export function jsonTooDeep(maxDepth: number): ApiError {
  return new ApiError(
    "request/validation-failed",
    `Invalid request: the JSON body is nested more than ${maxDepth} levels deep (objects and arrays); at most ${maxDepth} are allowed.`,
  );
}
