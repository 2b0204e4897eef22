import { ApiError } from "@/lib/core/errors";

/** Reads the whole request body, refusing it as soon as it passes `maxBytes` (never buffers more). */
export async function readBodyCapped(request: Request, maxBytes: number): Promise<Buffer> {
  const declared = Number(request.headers.get("content-length") ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);
  if (!request.body) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  let total = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(maxBytes);
    }
    chunks.push(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
  }
  return Buffer.concat(chunks, total);
}

function tooLarge(maxBytes: number): ApiError {
  return new ApiError("request/body-too-large", `The request body is larger than ${maxBytes} bytes.`);
}

/** Parses a JSON body; an empty body is `undefined` so the schema reports what is missing. */
export function parseJsonBody(raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  try {
    return JSON.parse(raw.toString("utf8"));
  } catch (error) {
    const detail = error instanceof Error ? error.message : "";
    throw new ApiError("request/malformed-json", `The request body is not valid JSON${detail ? `: ${detail}` : "."}`);
  }
}
