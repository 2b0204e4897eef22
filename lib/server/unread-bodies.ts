import type http from "node:http";
import type { Socket } from "node:net";

/**
 * A response can start before its request body was read to the end: a handler refuses a body by
 * its Content-Length (413) or mid-stream (too deep, malformed), leaving the rest of the body
 * unread, so the next request on that keep-alive connection would never be parsed. Such a response
 * says `Connection: close` and the connection ends after it.
 *
 * But closing a socket while the client still sends makes the kernel answer with a reset, which can
 * destroy the response before the client has read it: EPIPE or ECONNRESET instead of the 413 (every
 * time for a client that sends its whole body before reading, unread-bodies.test.ts; now and then
 * in the 413 tests). So the close lingers, as nginx's lingering close does: once the response is
 * out, our side of the connection ends, the rest of the body is read and dropped (taken from
 * whatever of Next.js's was reading it, so none of it reaches an abandoned reader; a request Next.js
 * destroyed is not read further), and the socket goes when the client ends its side, or after
 * LINGER_MS.
 */
export const LINGER_MS = 5_000;

export function closeConnectionIfBodyUnread(req: http.IncomingMessage, res: http.ServerResponse): void {
  const writeHead = res.writeHead;
  // Every response passes here: write() and end() without an explicit writeHead call it too.
  res.writeHead = function (this: http.ServerResponse, ...args: Parameters<typeof writeHead>) {
    if (!req.complete) {
      this.shouldKeepAlive = false;
      lingerOnClose(req, this.socket);
    }
    return writeHead.apply(this, args);
  } as typeof writeHead;
}

/** Replaces the socket's destroySoon (what Node's server calls after the last response) with a lingering close. */
function lingerOnClose(req: http.IncomingMessage, socket: Socket | null): void {
  if (!socket) return;
  socket.destroySoon = function (this: typeof socket) {
    if (!req.complete && !req.destroyed) {
      // Flowing with no listener: what arrives is dropped.
      req.removeAllListeners("data");
      req.removeAllListeners("readable");
      req.resume();
    }
    const timer = setTimeout(() => this.destroy(), LINGER_MS);
    timer.unref();
    this.once("close", () => clearTimeout(timer));
    // The client's end: it has sent all it will.
    this.once("end", () => this.destroy());
    this.end();
  };
}
