import type { IncomingMessage } from "node:http";
import { Readable } from "node:stream";
import { ApiError } from "@/lib/core/errors";

/**
 * Wraps a response body: fails with `upload/too-large` as soon as more than `maxBytes` arrive (a
 * lying or absent Content-Length must not let a server stream unbounded data), and with
 * `asset/url-fetch-failed` when the server sends nothing for `idleMs` while we are waiting for data.
 *
 * The idle timer only runs while the consumer wants data: a consumer that applies backpressure
 * (e.g. a slow storage upload) is not mistaken for a stalled server. A consumer that never reads
 * must destroy the stream to release the connection.
 */
export class LimitedBody extends Readable {
  readonly #res: IncomingMessage;
  readonly #maxBytes: number;
  readonly #idleMs: number;
  #received = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(res: IncomingMessage, maxBytes: number, idleMs: number) {
    super();
    this.#res = res;
    this.#maxBytes = maxBytes;
    this.#idleMs = idleMs;
    res.on("data", (chunk: Buffer) => this.#onData(chunk));
    res.on("end", () => {
      this.#clearIdle();
      this.push(null);
    });
    res.on("error", (err) => this.destroy(fetchFailed(`the connection failed while reading the body (${err.message})`)));
    res.on("close", () => {
      if (!res.complete) this.destroy(fetchFailed("the connection closed before the body was complete"));
    });
    res.pause(); // flow only on demand, see _read
  }

  /** Bytes received from the server so far. */
  get bytesReceived(): number {
    return this.#received;
  }

  override _read(): void {
    this.#armIdle();
    this.#res.resume();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.#clearIdle();
    this.#res.destroy();
    callback(error);
  }

  #onData(chunk: Buffer): void {
    if (this.destroyed) return;
    this.#received += chunk.length;
    if (this.#received > this.#maxBytes) {
      this.destroy(new ApiError("upload/too-large", `The remote content is larger than ${this.#maxBytes} bytes.`));
      return;
    }
    if (this.push(chunk)) {
      this.#armIdle();
    } else {
      this.#clearIdle();
      this.#res.pause();
    }
  }

  #armIdle(): void {
    this.#clearIdle();
    this.#timer = setTimeout(
      () => this.destroy(fetchFailed(`timed out: no body data for ${this.#idleMs} ms`)),
      this.#idleMs,
    );
  }

  #clearIdle(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}

/** The error for a fetch that failed for a network or protocol reason (422 asset/url-fetch-failed). */
export function fetchFailed(reason: string): ApiError {
  return new ApiError("asset/url-fetch-failed", `The URL could not be fetched: ${reason}.`);
}
