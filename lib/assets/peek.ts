import type { Readable } from "node:stream";
import { ApiError } from "@/lib/core/errors";
import { peekStream } from "@/lib/core/streams";

/**
 * The first bytes of some content (for type detection) and the content itself, still whole.
 * Empty content is refused here, before anything is stored.
 */
export async function readContentHead(
  source: Buffer | Readable,
  headBytes: number,
): Promise<{ head: Buffer; body: Buffer | Readable }> {
  if (Buffer.isBuffer(source)) {
    if (source.length === 0) throw new ApiError("upload/empty-content");
    return { head: source.subarray(0, headBytes), body: source };
  }
  const { head, stream } = await peekStream(source, headBytes);
  if (head.length === 0) throw new ApiError("upload/empty-content");
  return { head, body: stream };
}
