import type http from "node:http";

/**
 * A response can start before its request body was read to the end: a handler refuses a body
 * mid-stream (too deep, too large, malformed) and Next.js destroys the request stream, leaving the
 * rest of the body unread in a paused socket, so the next request on that keep-alive connection
 * would never be parsed. Such a response says `Connection: close` and the connection ends with it;
 * the client's next request opens a fresh one.
 */
export function closeConnectionIfBodyUnread(req: http.IncomingMessage, res: http.ServerResponse): void {
  const writeHead = res.writeHead;
  // Every response passes here: write() and end() without an explicit writeHead call it too.
  res.writeHead = function (this: http.ServerResponse, ...args: Parameters<typeof writeHead>) {
    if (!req.complete) this.shouldKeepAlive = false;
    return writeHead.apply(this, args);
  } as typeof writeHead;
}
