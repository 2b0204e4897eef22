import http from "node:http";
import { beforeAll, describe, expect, it } from "vitest";
import { baseUrl, expectOk, newProject, type TestProject } from "./support";

/**
 * Requests refused before or outside a route handler still get the API's error body, and a body
 * refused mid-stream never wedges the keep-alive connection it came on (found by the fuzz test).
 */
let p: TestProject;
let assetId: string;
beforeAll(async () => {
  p = await newProject();
  assetId = expectOk(await p.client.post(`/projects/${p.projectId}/assets?queue=true`, { name: "a", content: { plainText: "hi", type: "text/plain" } })).id;
});

interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One request through `agent` (keep-alive with a single socket: every request reuses the connection). */
function send(agent: http.Agent, method: string, path: string, body?: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const request = http.request(`${baseUrl}${path}`, { method, agent, headers: { "X-Api-Key": p.apiKey, ...headers }, timeout: 10_000 }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString("utf8") }));
    });
    request.on("timeout", () => request.destroy(new Error(`no answer to ${method} ${path}`)));
    request.on("error", reject);
    request.end(body);
  });
}

function expectErrorBody(response: RawResponse, status: number, code: string) {
  expect(response.status).toBe(status);
  expect(response.headers["content-type"]).toMatch(/application\/json/);
  const body = JSON.parse(response.body);
  expect(Object.keys(body).sort()).toEqual(["code", "message", "traceId"]);
  expect(body.code).toBe(code);
  expect(body.traceId).toBe(response.headers["x-request-id"]);
}

describe("requests refused outside the route handlers", () => {
  it("a path that is not valid percent-encoded UTF-8 gets 400 with the error body", async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    for (const path of ["/v1/assets/%FF", "/v1/lenses/%E0%A4", "/v1/projects/%FF/assets/page"]) {
      expectErrorBody(await send(agent, "GET", path), 400, "request/validation-failed");
    }
    agent.destroy();
  });

  it("a URL over Node's header limit gets 431 with the error body", async () => {
    const agent = new http.Agent({ keepAlive: false });
    expectErrorBody(await send(agent, "GET", `/v1/projects/${p.projectId}/assets/page?filter=${"a".repeat(20_000)}`), 431, "request/header-too-large");
    agent.destroy();
  });
});

describe("a body refused mid-stream", () => {
  it("closes its connection, so the next request on a keep-alive client is answered", async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    let deep = '"v"';
    for (let i = 0; i < 100; i++) deep = `{"k":${deep}}`;
    // Refused at level 65 in the first chunk; megabytes of the body are still on their way.
    const body = `{"name":${deep},"description":"${"x".repeat(3 * 1024 * 1024)}"}`;
    const json = { "Content-Type": "application/json" };
    for (let round = 0; round < 3; round++) {
      expectErrorBody(await send(agent, "PATCH", `/v1/assets/${assetId}`, body, json), 400, "request/validation-failed");
      const next = await send(agent, "PATCH", `/v1/assets/${assetId}`, JSON.stringify({ name: `renamed ${round}` }), json);
      expect(next.status).toBe(200);
      expect(next.headers.connection).toBe("keep-alive");
    }
    agent.destroy();
  });
});
