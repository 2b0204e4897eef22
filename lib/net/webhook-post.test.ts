import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isApiError } from "@/lib/core/errors";
import { closeWebhookPools } from "./webhook-pools";
import { postWebhook } from "./webhook-post";

/** The delivery POST against a local server: what is sent, what comes back, and what is refused. */
let server: http.Server;
let base: string;
const sockets = new Set<unknown>();
const received: { path: string; headers: http.IncomingHttpHeaders; body: string; socket: unknown }[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    sockets.add(req.socket);
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ path: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8"), socket: req.socket });
      if (req.url === "/redirect") return void res.writeHead(302, { location: "/elsewhere" }).end();
      if (req.url === "/large") return void res.writeHead(500).end("x".repeat(5000));
      if (req.url === "/hang") return; // never answers
      res.writeHead(200, { "content-type": "text/plain" }).end("thanks");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await closeWebhookPools();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const options = { allowPrivateNetworks: true, timeoutMs: 2000, excerptBytes: 1024 };

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(isApiError(error)).toBe(true);
  return (error as { code: string }).code;
}

describe("postWebhook", () => {
  it("sends the body and headers, answers status and excerpt, and reuses the connection", async () => {
    received.length = 0;
    sockets.clear();
    for (let i = 0; i < 3; i++) {
      const answer = await postWebhook(`${base}/hook?x=1`, Buffer.from(`{"n":${i}}`), { "webhook-id": `msg_${i}` }, options);
      expect(answer.status).toBe(200);
      expect(answer.excerpt.toString()).toBe("thanks");
    }
    expect(received.map((r) => [r.path, r.body, r.headers["webhook-id"], r.headers["content-length"]])).toEqual([
      ["/hook?x=1", '{"n":0}', "msg_0", "7"],
      ["/hook?x=1", '{"n":1}', "msg_1", "7"],
      ["/hook?x=1", '{"n":2}', "msg_2", "7"],
    ]);
    // Kept alive: undici's pool may open a second connection when a request follows the previous
    // answer within the same tick, never one per request.
    expect(sockets.size).toBeLessThanOrEqual(2);
    for (let i = 3; i < 10; i++) await postWebhook(`${base}/hook`, Buffer.from("{}"), {}, options);
    expect(sockets.size).toBeLessThanOrEqual(2);
  });

  it("keeps only the first excerptBytes of a large answer", async () => {
    const answer = await postWebhook(`${base}/large`, Buffer.from("{}"), {}, options);
    expect(answer.status).toBe(500);
    expect(answer.excerpt.length).toBe(1024);
  });

  it("does not follow a redirect: the 3xx and its Location are the answer", async () => {
    received.length = 0;
    const answer = await postWebhook(`${base}/redirect`, Buffer.from("{}"), {}, options);
    expect(answer).toMatchObject({ status: 302, location: "/elsewhere" });
    expect(received.map((r) => r.path)).toEqual(["/redirect"]);
  });

  it("gives up at the deadline when the endpoint does not answer", async () => {
    const started = performance.now();
    const promise = postWebhook(`${base}/hang`, Buffer.from("{}"), {}, { ...options, timeoutMs: 300 });
    expect(await refusal(promise)).toBe("asset/url-fetch-failed");
    await expect(promise).rejects.toThrow(/timed out after 300 ms/);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it("refuses private addresses, literal or resolved, unless allowed, before connecting", async () => {
    received.length = 0;
    const strict = { ...options, allowPrivateNetworks: false };
    expect(await refusal(postWebhook(`${base}/hook`, Buffer.from("{}"), {}, strict))).toBe("asset/url-not-allowed");
    const resolve = async () => ["10.0.0.7", "93.184.216.34"];
    expect(await refusal(postWebhook("http://hooks.example.test/hook", Buffer.from("{}"), {}, { ...strict, resolve }))).toBe("asset/url-not-allowed");
    expect(await refusal(postWebhook("ftp://example.test/hook", Buffer.from("{}"), {}, options))).toBe("asset/url-not-allowed");
    expect(received).toEqual([]);
  });

  it("reports a refused connection as a fetch failure", async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const promise = postWebhook(`http://127.0.0.1:${port}/hook`, Buffer.from("{}"), {}, options);
    expect(await refusal(promise)).toBe("asset/url-fetch-failed");
    await expect(promise).rejects.toThrow(/ECONNREFUSED/);
  });

  // A name, resolved on every request: its pool is chosen by the checked address set, never cached as a verdict.
  const zone: Record<string, string[]> = {};
  const named = { ...options, resolve: async (host: string) => zone[host] ?? [] };
  const port = () => new URL(base).port;

  it("refuses a host that now resolves to a disallowed address although its pool exists", async () => {
    received.length = 0;
    sockets.clear();
    zone["moving.test"] = ["127.0.0.1"];
    expect((await postWebhook(`http://moving.test:${port()}/a`, Buffer.from("{}"), {}, named)).status).toBe(200);
    // 0.0.0.0 stays denied even where private networks are allowed.
    zone["moving.test"] = ["0.0.0.0"];
    expect(await refusal(postWebhook(`http://moving.test:${port()}/b`, Buffer.from("{}"), {}, named))).toBe("asset/url-not-allowed");
    zone["moving.test"] = ["127.0.0.1", "0.0.0.0"];
    expect(await refusal(postWebhook(`http://moving.test:${port()}/c`, Buffer.from("{}"), {}, named))).toBe("asset/url-not-allowed");
    expect(received.map((r) => r.path)).toEqual(["/a"]);
    expect(sockets.size).toBe(1);
  });

  it("keeps a pool per host and set of checked addresses: no socket is shared across hosts", async () => {
    received.length = 0;
    zone["one.test"] = ["127.0.0.1"];
    zone["two.test"] = ["127.0.0.1"];
    for (const host of ["one.test", "two.test", "one.test", "two.test"]) await postWebhook(`http://${host}:${port()}/p`, Buffer.from("{}"), {}, named);
    const socketsOf = (host: string) => new Set(received.filter((r) => r.headers.host?.startsWith(host)).map((r) => r.socket));
    expect(socketsOf("one.test").size).toBeGreaterThan(0);
    expect([...socketsOf("one.test")].filter((socket) => socketsOf("two.test").has(socket))).toEqual([]);
  });
});
