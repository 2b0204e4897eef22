import http from "node:http";
import type { AddressInfo } from "node:net";
import { text } from "node:stream/consumers";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { checkAddress, type AddressChecker } from "./address-policy";
import { createSafeFetch, safeFetch, type Resolver, type SafeFetchOptions } from "./safe-fetch";

// Only 127.0.0.1 is ever contacted. To exercise the "allowed" paths without a public address, the
// injected checker treats exactly 127.0.0.1 as public, and the injected resolver maps *.test names
// to loopback addresses; 127.0.0.2 stands in for a forbidden internal host (the real policy
// denies it as loopback), so even a bug would only send traffic to loopback.

const hits = new Map<string, number>();
let port = 0;
let server: http.Server;

function handler(req: http.IncomingMessage, res: http.ServerResponse): void {
  const url = new URL(req.url ?? "/", "http://x");
  hits.set(url.pathname, (hits.get(url.pathname) ?? 0) + 1);
  const [, route, arg] = url.pathname.split("/");
  switch (route) {
    case "ok":
      res.writeHead(200, { "content-type": "text/plain; charset=utf-8", "content-length": "5", "x-multi": ["a", "b"] });
      res.end("hello");
      return;
    case "echo":
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(req.headers));
      return;
    case "redirect":
      res.writeHead(Number(url.searchParams.get("status") ?? 302), { location: url.searchParams.get("to") ?? "/" });
      res.end();
      return;
    case "loop":
      res.writeHead(301, { location: "/loop" });
      res.end();
      return;
    case "chain": {
      const n = Number(arg);
      if (n > 0) res.writeHead(307, { location: `/chain/${n - 1}` }).end();
      else res.writeHead(200).end("end of chain");
      return;
    }
    case "status":
      res.writeHead(Number(arg)).end("nope");
      return;
    case "sized":
      res.writeHead(200, { "content-length": String(Number(arg)) });
      res.end(Buffer.alloc(Number(arg), 97));
      return;
    case "stream": {
      res.writeHead(200); // chunked, no Content-Length
      const chunk = Buffer.alloc(1024, 98);
      let sent = 0;
      const pump = () => {
        while (sent < Number(arg)) {
          sent++;
          if (!res.write(chunk)) return void res.once("drain", pump);
        }
        res.end();
      };
      pump();
      return;
    }
    case "mirror": {
      // method, content-type, content-length and body of the request
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        res.writeHead(200, { "content-type": "application/json" });
        const { "content-type": type = null, "content-length": length = null } = req.headers;
        res.end(JSON.stringify({ method: req.method, type, length, body: Buffer.concat(chunks).toString("utf8") }));
      });
      return;
    }
    case "hang":
      return; // never answers
    case "stall":
      res.writeHead(200, { "content-type": "application/octet-stream" });
      res.write("partial");
      return; // ...and never finishes
    default:
      res.writeHead(404).end();
  }
}

beforeAll(async () => {
  server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => hits.clear());

const treat127001AsPublic: AddressChecker = (address, allowPrivate) =>
  address === "127.0.0.1" ? { allowed: true, address, range: "unicast" } : checkAddress(address, allowPrivate);

const zone: Record<string, string[]> = {
  "public.test": ["127.0.0.1"],
  "other.test": ["127.0.0.1"],
  "evil.test": ["127.0.0.2"],
  "mixed.test": ["127.0.0.1", "127.0.0.2"],
};
const testResolver: Resolver = async (host) => {
  const answer = zone[host];
  if (!answer) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
  return answer;
};

const fetchPublic = createSafeFetch({ resolve: testResolver, checkAddress: treat127001AsPublic });

const defaults: SafeFetchOptions = { allowPrivateNetworks: false, timeoutMs: 2000, maxRedirects: 5, maxBytes: 1_000_000 };
const opts = (over: Partial<SafeFetchOptions> = {}): SafeFetchOptions => ({ ...defaults, ...over });
const base = () => `http://127.0.0.1:${port}`;
const pub = (path: string) => `http://public.test:${port}${path}`;

async function rejection(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    return error as { code: string; message: string };
  }
  throw new Error("expected a rejection");
}

describe("safeFetch: address policy", () => {
  it("refuses loopback by default and names the reason", async () => {
    const err = await rejection(safeFetch(`${base()}/ok`, opts()));
    expect(err.code).toBe("asset/url-not-allowed");
    expect(err.message).toMatch(/127\.0\.0\.1 is a loopback address/);
    expect(hits.size).toBe(0);
  });

  it("refuses localhost resolved through the system resolver", async () => {
    const err = await rejection(safeFetch(`http://localhost:${port}/ok`, opts()));
    expect(err.code).toBe("asset/url-not-allowed");
    expect(err.message).toMatch(/loopback/);
  });

  it("fetches loopback when allowPrivateNetworks is set", async () => {
    const res = await safeFetch(`${base()}/ok`, opts({ allowPrivateNetworks: true }));
    expect(res.status).toBe(200);
    expect(res.url).toBe(`${base()}/ok`);
    expect(res.contentType).toBe("text/plain; charset=utf-8");
    expect(res.contentLength).toBe(5);
    expect(res.headers["x-multi"]).toBe("a, b");
    expect(await text(res.body)).toBe("hello");
  });

  it.each([
    "http://2130706433:PORT/ok",
    "http://0x7f.1:PORT/ok",
    "http://0177.0.0.1:PORT/ok",
    "http://127.1:PORT/ok",
    "http://[::ffff:127.0.0.1]:PORT/ok",
    "http://[::ffff:7f00:1]:PORT/ok",
    "http://[::1]:PORT/ok",
    "http://[64:ff9b::7f00:1]:PORT/ok",
  ])("refuses the loopback literal %s", async (url) => {
    const err = await rejection(safeFetch(url.replace("PORT", String(port)), opts()));
    expect(err.code).toBe("asset/url-not-allowed");
    expect(err.message).toMatch(/loopback/);
    expect(hits.size).toBe(0);
  });

  it("connects to the normalised address of a numeric literal when private networks are allowed", async () => {
    const res = await safeFetch(`http://2130706433:${port}/ok`, opts({ allowPrivateNetworks: true }));
    expect(await text(res.body)).toBe("hello");
  });

  it.each(["http://0.0.0.0:PORT/ok", "http://0:PORT/ok", "http://[::]:PORT/ok"])(
    "refuses the unspecified address %s even with allowPrivateNetworks",
    async (url) => {
      const err = await rejection(safeFetch(url.replace("PORT", String(port)), opts({ allowPrivateNetworks: true })));
      expect(err.code).toBe("asset/url-not-allowed");
      expect(err.message).toMatch(/unspecified/);
    },
  );

  it("refuses a host when any of its addresses is forbidden", async () => {
    const err = await rejection(fetchPublic(`http://mixed.test:${port}/ok`, opts()));
    expect(err.code).toBe("asset/url-not-allowed");
    expect(err.message).toBe("Refusing to fetch mixed.test: it resolves to a loopback address, which is not allowed.");
    expect(hits.size).toBe(0);
  });

  it("connects to the checked address, not a second DNS answer, and keeps the Host header", async () => {
    // public.test does not exist in system DNS: success proves the socket used the checked address.
    const res = await fetchPublic(pub("/echo"), opts());
    const echoed = JSON.parse(await text(res.body)) as Record<string, string>;
    expect(echoed.host).toBe(`public.test:${port}`);
    expect(echoed["accept-encoding"]).toBe("identity");
  });

  it("fails cleanly when the name does not resolve", async () => {
    const err = await rejection(fetchPublic(`http://nowhere.test:${port}/ok`, opts()));
    expect(err.code).toBe("asset/url-fetch-failed");
    expect(err.message).toMatch(/could not be resolved \(ENOTFOUND\)/);
  });
});

describe("safeFetch: URL rules", () => {
  it.each(["ftp://public.test/x", "file:///etc/passwd", "data:text/plain,hi", "javascript:alert(1)", "gopher://x/"])(
    "refuses the scheme of %s",
    async (url) => {
      const err = await rejection(fetchPublic(url, opts()));
      expect(err.code).toBe("asset/url-not-allowed");
      expect(err.message).toMatch(/Only http and https/);
    },
  );

  it("refuses credentials in the URL and invalid URLs", async () => {
    expect((await rejection(fetchPublic(`http://user:pw@public.test:${port}/ok`, opts()))).message).toMatch(/credentials/);
    expect((await rejection(fetchPublic(`http://user@public.test:${port}/ok`, opts()))).code).toBe("asset/url-not-allowed");
    expect((await rejection(fetchPublic("not a url", opts()))).code).toBe("asset/url-not-allowed");
    expect(hits.size).toBe(0);
  });
});

describe("safeFetch: redirects", () => {
  const to = (target: string, status = 302) => pub(`/redirect?status=${status}&to=${encodeURIComponent(target)}`);

  it.each([301, 302, 303, 307, 308])("follows a relative %i redirect", async (status) => {
    const res = await fetchPublic(to("/ok", status), opts());
    expect(res.url).toBe(pub("/ok"));
    expect(await text(res.body)).toBe("hello");
  });

  it.each([
    ["a name resolving to a forbidden address", "http://evil.test:PORT/secret", /evil\.test: it resolves to a loopback address/],
    ["a forbidden literal", "http://127.0.0.2:PORT/secret", /127\.0\.0\.2 is a loopback/],
    ["an IPv4-mapped literal", "http://[::ffff:127.0.0.2]:PORT/secret", /IPv4-mapped 127\.0\.0\.2/],
    ["a non-http scheme", "file:///etc/passwd", /Only http and https/],
  ])("refuses a redirect to %s", async (_label, target, message) => {
    const err = await rejection(fetchPublic(to(target.replace("PORT", String(port))), opts()));
    expect(err.code).toBe("asset/url-not-allowed");
    expect(err.message).toMatch(message);
    expect(hits.get("/secret")).toBeUndefined();
  });

  it("re-resolves and re-checks every hop (a rebinding answer on the second hop is refused)", async () => {
    let calls = 0;
    const rebinding: Resolver = async () => (++calls === 1 ? ["127.0.0.1"] : ["127.0.0.2"]);
    const fetcher = createSafeFetch({ resolve: rebinding, checkAddress: treat127001AsPublic });
    const err = await rejection(fetcher(to(`http://public.test:${port}/secret`), opts()));
    expect(err.code).toBe("asset/url-not-allowed");
    expect(calls).toBe(2);
    expect(hits.get("/secret")).toBeUndefined();
  });

  it("reports a redirect loop", async () => {
    const err = await rejection(fetchPublic(pub("/loop"), opts()));
    expect(err.code).toBe("asset/url-fetch-failed");
    expect(err.message).toMatch(/redirect loop/);
  });

  it("caps the number of redirects", async () => {
    expect(await text((await fetchPublic(pub("/chain/2"), opts({ maxRedirects: 2 }))).body)).toBe("end of chain");
    const err = await rejection(fetchPublic(pub("/chain/3"), opts({ maxRedirects: 2 })));
    expect(err.code).toBe("asset/url-fetch-failed");
    expect(err.message).toMatch(/too many redirects \(the limit is 2\)/);
    expect((await rejection(fetchPublic(pub("/chain/1"), opts({ maxRedirects: 0 })))).message).toMatch(/too many redirects/);
  });

  it("drops credential headers when the origin changes, keeps them on the same origin", async () => {
    const headers = { Authorization: "Bearer secret", "X-Trace": "t1" };
    const same = await fetchPublic(to("/echo"), opts({ headers }));
    expect(JSON.parse(await text(same.body))).toMatchObject({ authorization: "Bearer secret", "x-trace": "t1" });
    const cross = await fetchPublic(to(`http://other.test:${port}/echo`), opts({ headers }));
    const echoed = JSON.parse(await text(cross.body)) as Record<string, string>;
    expect(echoed.authorization).toBeUndefined();
    expect(echoed["x-trace"]).toBe("t1");
    expect(echoed.host).toBe(`other.test:${port}`);
  });
});

describe("safeFetch: status, time and size limits", () => {
  it.each([404, 500, 304])("fails on a final HTTP %i", async (status) => {
    const err = await rejection(fetchPublic(pub(`/status/${status}`), opts()));
    expect(err.code).toBe("asset/url-fetch-failed");
    expect(err.message).toMatch(new RegExp(`HTTP ${status}`));
  });

  it("times out waiting for response headers", async () => {
    const started = Date.now();
    const err = await rejection(fetchPublic(pub("/hang"), opts({ timeoutMs: 200 })));
    expect(err.code).toBe("asset/url-fetch-failed");
    expect(err.message).toMatch(/timed out after 200 ms/);
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it("times out a resolver that never answers", async () => {
    const fetcher = createSafeFetch({ resolve: () => new Promise(() => {}), checkAddress: treat127001AsPublic });
    const err = await rejection(fetcher(pub("/ok"), opts({ timeoutMs: 150 })));
    expect(err.message).toMatch(/timed out/);
  });

  it("fails the body when the server stalls mid-body", async () => {
    const res = await fetchPublic(pub("/stall"), opts({ timeoutMs: 200 }));
    const err = await rejection(text(res.body));
    expect(err.code).toBe("asset/url-fetch-failed");
    expect(err.message).toMatch(/no body data for 200 ms/);
  });

  it("refuses a Content-Length above maxBytes before reading, accepts exactly maxBytes", async () => {
    const err = await rejection(fetchPublic(pub("/sized/1000"), opts({ maxBytes: 999 })));
    expect(err.code).toBe("upload/too-large");
    expect(err.message).toMatch(/1000 bytes; the limit is 999/);
    const res = await fetchPublic(pub("/sized/1000"), opts({ maxBytes: 1000 }));
    expect((await text(res.body)).length).toBe(1000);
  });

  it("fails the body stream once a body without Content-Length exceeds maxBytes", async () => {
    const res = await fetchPublic(pub("/stream/200"), opts({ maxBytes: 10_000 }));
    expect(res.contentLength).toBeNull();
    const err = await rejection(text(res.body));
    expect(err.code).toBe("upload/too-large");
  });

  it("fails when nothing listens", async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const err = await rejection(fetchPublic(`http://public.test:${closedPort}/`, opts()));
    expect(err.code).toBe("asset/url-fetch-failed");
    expect(err.message).toMatch(/ECONNREFUSED/);
  });
});

describe("safeFetch: POST and acceptAnyStatus (webhook deliveries)", () => {
  const post = (over: Partial<SafeFetchOptions> = {}) =>
    opts({ method: "POST", body: Buffer.from('{"a":1}'), headers: { "content-type": "application/json" }, ...over });
  const to = (target: string, status: number) => pub(`/redirect?status=${status}&to=${encodeURIComponent(target)}`);

  it("sends the method, the body and its Content-Length", async () => {
    const res = await fetchPublic(pub("/mirror"), post());
    expect(JSON.parse(await text(res.body))).toEqual({ method: "POST", type: "application/json", length: "7", body: '{"a":1}' });
  });

  it("returns a non-2xx response instead of failing when acceptAnyStatus is set", async () => {
    const res = await fetchPublic(pub("/status/500"), post({ acceptAnyStatus: true }));
    expect(res.status).toBe(500);
    expect(await text(res.body)).toBe("nope");
    expect((await rejection(fetchPublic(pub("/status/500"), post()))).message).toMatch(/HTTP 500/);
  });

  it("returns a redirect unfollowed with maxRedirects 0 and acceptAnyStatus", async () => {
    const res = await fetchPublic(to("/mirror", 302), post({ acceptAnyStatus: true, maxRedirects: 0 }));
    res.body.destroy();
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe("/mirror");
    expect(hits.get("/mirror")).toBeUndefined();
  });

  it("repeats method and body on 307/308, continues as a bodiless GET on 303", async () => {
    for (const status of [307, 308]) {
      const res = await fetchPublic(to("/mirror", status), post());
      expect(JSON.parse(await text(res.body))).toMatchObject({ method: "POST", body: '{"a":1}' });
    }
    const res = await fetchPublic(to("/mirror", 303), post());
    expect(JSON.parse(await text(res.body))).toEqual({ method: "GET", type: null, length: null, body: "" });
  });

  it("applies the same address policy to a POST", async () => {
    const err = await rejection(safeFetch(`${base()}/mirror`, post({ acceptAnyStatus: true })));
    expect(err.code).toBe("asset/url-not-allowed");
    expect(hits.size).toBe(0);
    const res = await safeFetch(`${base()}/mirror`, post({ allowPrivateNetworks: true }));
    expect(JSON.parse(await text(res.body))).toMatchObject({ method: "POST" });
  });
});
