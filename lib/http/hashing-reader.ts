import { createHash } from "node:crypto";
import { Readable, Transform } from "node:stream";
import type { ReadableStream as WebReadableStream } from "node:stream/web";

/**
 * Wraps a request body as a Node stream and hashes every byte the consumer reads, so idempotency
 * can identify a raw upload by its digest without buffering it.
 */
/** A web request body as a Node stream (empty when there is no body). */
export function nodeStream(body: ReadableStream<Uint8Array> | null): Readable {
  return body ? Readable.fromWeb(body as unknown as WebReadableStream<Uint8Array>) : Readable.from([]);
}

export class HashingReader {
  readonly stream: Readable;
  private readonly hash = createHash("sha256");
  private ended = false;

  constructor(body: ReadableStream<Uint8Array> | null) {
    const source = nodeStream(body);
    const hash = this.hash;
    const tap = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        hash.update(chunk);
        callback(null, chunk);
      },
    });
    source.on("error", (error) => tap.destroy(error));
    tap.on("end", () => {
      this.ended = true;
    });
    this.stream = source.pipe(tap);
  }

  /** Reads whatever the consumer left unread and returns the digest of the whole body. */
  async drain(): Promise<string> {
    if (!this.ended && !this.stream.destroyed) {
      await new Promise<void>((resolve) => {
        this.stream.once("end", resolve);
        this.stream.once("error", () => resolve());
        this.stream.once("close", resolve);
        this.stream.resume();
      });
    }
    return this.hash.copy().digest("hex");
  }
}
