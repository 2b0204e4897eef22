import { PassThrough, Readable } from "node:stream";

/**
 * Reads the first `size` bytes of a stream (for type detection) and returns them with a stream that
 * still yields every byte, head included.
 */
export async function peekStream(source: Readable, size: number): Promise<{ head: Buffer; stream: Readable }> {
  const chunks: Buffer[] = [];
  let length = 0;
  const iterator = source[Symbol.asyncIterator]();
  let done = false;
  while (length < size) {
    const next = (await iterator.next()) as IteratorResult<Buffer>;
    if (next.done) {
      done = true;
      break;
    }
    const chunk = Buffer.isBuffer(next.value) ? next.value : Buffer.from(next.value);
    chunks.push(chunk);
    length += chunk.length;
  }
  const head = Buffer.concat(chunks, length);
  if (done) return { head, stream: Readable.from([head]) };
  const out = new PassThrough();
  out.write(head);
  (async () => {
    for (;;) {
      const next = (await iterator.next()) as IteratorResult<Buffer>;
      if (next.done) break;
      if (!out.write(next.value)) await new Promise((resolve) => out.once("drain", resolve));
    }
    out.end();
  })().catch((error: unknown) => out.destroy(error instanceof Error ? error : new Error(String(error))));
  return { head, stream: out };
}

/** Collects a stream into memory, refusing more than `maxBytes` (used for images, which are small). */
export async function collectStream(source: Readable, maxBytes: number, onTooLarge: () => Error): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of source) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    length += buffer.length;
    if (length > maxBytes) {
      source.destroy();
      throw onTooLarge();
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks, length);
}
