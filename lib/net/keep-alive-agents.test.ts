import http from "node:http";
import type { AddressInfo } from "node:net";
import { text } from "node:stream/consumers";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { checkAddress, type AddressChecker } from "./address-policy";
import { closeKeepAliveAgents, keepAliveAgentCount } from "./keep-alive-agents";
import { createSafeFetch, type Resolver, type SafeFetchOptions } from "./safe-fetch";

// As in safe-fetch.test.ts: only 127.0.0.1 is ever contacted; the injected checker treats exactly
// 127.0.0.1 as public and 127.0.0.2 stands in for a forbidden internal address.

let port = 0;
let server: http.Server;
const connections: number[] = [];
const hits: string[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    hits.push(req.url ?? "");
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ remotePort: req.socket.remotePort, connection: req.headers.connection ?? null }));
    });
  });
  server.on("connection", (socket) => connections.push(socket.remotePort ?? 0));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  closeKeepAliveAgents();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  closeKeepAliveAgents();
  connections.length = 0;
  hits.length = 0;
});

const zone: Record<string, string[]> = { "hooks.test": ["127.0.0.1"] };
const resolver: Resolver = async (host) => {
  const answer = zone[host];
  if (!answer) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
  return answer;
};
const treat127001AsPublic: AddressChecker = (address, allowPrivate) =>
  address === "127.0.0.1" ? { allowed: true, address, range: "unicast" } : checkAddress(address, allowPrivate);
const fetchHooks = createSafeFetch({ resolve: resolver, checkAddress: treat127001AsPublic });

const post = (over: Partial<SafeFetchOptions> = {}): SafeFetchOptions => ({
  allowPrivateNetworks: false,
  timeoutMs: 2000,
  maxRedirects: 0,
  maxBytes: 1_000_000,
  method: "POST",
  body: Buffer.from('{"a":1}'),
  acceptAnyStatus: true,
  ...over,
});

async function postJson(url: string, over: Partial<SafeFetchOptions> = {}) {
  const res = await fetchHooks(url, post(over));
  return JSON.parse(await text(res.body)) as { remotePort: number; connection: string | null };
}

describe("safeFetch keepAlive (webhook deliveries)", () => {
  it("reuses one socket for two POSTs to the same server", async () => {
    const first = await postJson(`http://hooks.test:${port}/a`, { keepAlive: true });
    const second = await postJson(`http://hooks.test:${port}/b`, { keepAlive: true });
    expect(first.connection).toBe("keep-alive");
    expect(second.remotePort).toBe(first.remotePort);
    expect(connections).toHaveLength(1);
    expect(keepAliveAgentCount()).toBe(1);
  });

  it("still opens a connection per request without keepAlive", async () => {
    const first = await postJson(`http://hooks.test:${port}/a`);
    const second = await postJson(`http://hooks.test:${port}/b`);
    expect(first.connection).toBe("close");
    expect(second.remotePort).not.toBe(first.remotePort);
    expect(keepAliveAgentCount()).toBe(0);
  });

  it("refuses a host that now resolves to a disallowed address although its agent exists", async () => {
    zone["moving.test"] = ["127.0.0.1"];
    await postJson(`http://moving.test:${port}/a`, { keepAlive: true });
    expect(keepAliveAgentCount()).toBe(1);
    zone["moving.test"] = ["127.0.0.2"];
    await expect(fetchHooks(`http://moving.test:${port}/b`, post({ keepAlive: true }))).rejects.toMatchObject({ code: "asset/url-not-allowed" });
    zone["moving.test"] = ["127.0.0.1", "127.0.0.2"];
    await expect(fetchHooks(`http://moving.test:${port}/c`, post({ keepAlive: true }))).rejects.toMatchObject({ code: "asset/url-not-allowed" });
    expect(hits).toEqual(["/a"]);
    expect(connections).toHaveLength(1);
  });

  it("keeps one agent per host and set of checked addresses", async () => {
    zone["other.test"] = ["127.0.0.1"];
    await postJson(`http://hooks.test:${port}/a`, { keepAlive: true });
    await postJson(`http://other.test:${port}/b`, { keepAlive: true });
    expect(keepAliveAgentCount()).toBe(2);
    expect(connections).toHaveLength(2); // no socket shared across hosts
  });
});
