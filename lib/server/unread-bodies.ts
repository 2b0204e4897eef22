import type http from "node:http";
import type { Socket } from "node:net";

/**
 * A response can start before its request body was read to the end: a handler refuses a body
 * mid-stream (too deep, too large, malformed) and Next.js destroys the request stream, leaving the
 * rest of the body unread in a paused socket, so the next request on that keep-alive connection
 * would never be parsed. Such a response says `Connection: close` and the connection ends with it;
 * the client's next request opens a fresh one.
 *
 * Closing a socket whose client is still sending makes the kernel answer with a reset, which can
 * destroy the response before the client reads it (the client sees EPIPE or ECONNRESET instead of
 * its 413). So the connection lingers, as nginx's lingering_close does: our side is ended (FIN), the
 * rest of the body is read and discarded by Node's parser, and the socket is destroyed when the
 * client closes its side or after LINGER_MS.
 */
export const LINGER_MS = 5_000;

export function closeConnectionIfBodyUnread(req: http.IncomingMessage, res: http.ServerResponse): void {
  const writeHead = res.writeHead;
  // Every response passes here: write() and end() without an explicit writeHead call it too.
  res.writeHead = function (this: http.ServerResponse, ...args: Parameters<typeof writeHead>) {
    if (!req.complete) {
      this.shouldKeepAlive = false;
      lingerOnClose(req.socket);
    }
    return writeHead.apply(this, args);
  } as typeof writeHead;
}

/** Replaces the socket's destroySoon (what Node's server calls after a last response) with a lingering close. */
function lingerOnClose(socket: Socket): void {
  socket.destroySoon = function (this: Socket) {
    const timer = setTimeout(() => this.destroy(), LINGER_MS);
    timer.unref();
    this.once("end", () => {
      clearTimeout(timer);
      this.destroy();
    });
    this.once("close", () => clearTimeout(timer));
    this.end();
    this.resume();
  };
}
