import http from "node:http";
import net, { type AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { closeConnectionIfBodyUnread } from "./unread-bodies";

/**
 * A client still sending a body the server refused gets the answer, not a reset: against a real
 * Node server whose handler (like Next.js refusing a body) answers while its reader is paused.
 */
let server: http.Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

async function refusingServer(): Promise<number> {
  server = http.createServer((req, res) => {
    closeConnectionIfBodyUnread(req, res);
    // A reader that took the first chunk and stopped (a refusal mid-stream).
    req.once("data", () => req.pause());
    req.once("data", () => res.writeHead(413, { "content-type": "text/plain" }).end("too large"));
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return (server!.address() as AddressInfo).port;
}

/**
 * Writes the whole request before reading anything (as many clients do: the answer sits unread in
 * its socket meanwhile); resolves with the answer's status line and Connection header, or the error.
 */
function postAllThenRead(port: number, body: Buffer): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.pause();
    let answer = "";
    socket.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? "error"));
    socket.write(`POST / HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\n\r\n`);
    socket.write(body, () => {
      socket.on("data", (chunk: Buffer) => (answer += chunk.toString("latin1")));
      socket.on("end", () => resolve(`${answer.split("\r\n")[0]} / ${/^connection: (.*)$/im.exec(answer)?.[1]}`));
      socket.resume();
    });
  });
}

describe("a body refused before it was read", () => {
  it("is read to its end and dropped, so the client that sent all of it reads its answer", async () => {
    const port = await refusingServer();
    const body = Buffer.alloc(32 * 1024 * 1024, 0x20);
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await postAllThenRead(port, body));
    expect(answers).toEqual(Array(5).fill("HTTP/1.1 413 Payload Too Large / close"));
  }, 60_000);
});
