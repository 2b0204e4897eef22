import { randomUUID } from "node:crypto";
import http from "node:http";
import { beforeAll, describe, expect, it } from "vitest";
import { ApiClient, baseUrl, expectError, newKey, newProject, type ApiResponse, type TestProject } from "./support";
import { UUID_RE, runCli, cliJson } from "./platform-support";

/**
 * Behaviour shared by every endpoint: request ids, unknown paths and methods, JSON parsing and
 * validation, authentication, project access, permissions, rate limiting and the OpenAPI document.
 * Idempotency: platform-idempotency.test.ts; the admin CLI: platform-admin-cli.test.ts.
 */

let project: TestProject;
let other: TestProject;

beforeAll(async () => {
  [project, other] = await Promise.all([newProject(), newProject()]);
});

describe("health check and request ids", () => {
  it("answers 200 text/plain OK without a key, with an X-Request-Id", async () => {
    const res = await fetch(`${baseUrl}/v1/health-check`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(await res.text()).toBe("OK");
    expect(res.headers.get("x-request-id")).toMatch(UUID_RE);
  });

  it("gives every response its own request id", async () => {
    const anonymous = new ApiClient(null);
    const responses = await Promise.all([
      anonymous.get("/health-check"),
      anonymous.get("/health-check"),
      project.client.get(`/projects/${project.projectId}/folders`),
      anonymous.get(`/projects/${project.projectId}/folders`),
    ]);
    const ids = responses.map((r) => r.headers.get("x-request-id"));
    for (const id of ids) expect(id).toMatch(UUID_RE);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("ignores an X-Request-Id sent by the client", async () => {
    const res = await project.client.get(`/folders/${randomUUID()}`, { "X-Request-Id": "client-chosen" });
    expect(res.headers.get("x-request-id")).toMatch(UUID_RE);
    expectError(res, 404, "folder/not-found");
  });
});

describe("unknown paths and wrong methods", () => {
  it("returns 404 request/route-not-found as JSON for unknown paths", async () => {
    const anonymous = new ApiClient(null);
    for (const res of [
      await anonymous.get("/no-such-endpoint"),
      await project.client.post("/no/such/endpoint", { a: 1 }),
      await project.client.get(`/folders/${randomUUID()}/children`),
    ]) {
      expectError(res, 404, "request/route-not-found");
      expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    }
  });

  it("returns 405 request/method-not-allowed with an Allow header", async () => {
    const health = await project.client.delete("/health-check");
    expectError(health, 405, "request/method-not-allowed");
    expect(health.headers.get("allow")).toBe("GET, HEAD, OPTIONS");

    const folders = await project.client.request("PUT", `/projects/${project.projectId}/folders`, { json: { name: "x" } });
    expectError(folders, 405, "request/method-not-allowed");
    expect(folders.headers.get("allow")).toBe("GET, POST, HEAD, OPTIONS");

    const folder = await project.client.post(`/folders/${randomUUID()}`, { name: "x" });
    expectError(folder, 405, "request/method-not-allowed");
    expect(folder.headers.get("allow")).toBe("GET, PATCH, DELETE, HEAD, OPTIONS");

    const options = await project.client.request("OPTIONS", `/assets/${randomUUID()}/move`);
    expect(options.status).toBe(204);
    expect(options.headers.get("allow")).toBe("POST, OPTIONS");
    expect(options.headers.get("x-request-id")).toBeTruthy();
  });

  it("answers the bare API prefix with the JSON 404", async () => {
    expectError(await project.client.get(""), 404, "request/route-not-found");
  });
});

describe("request bodies and query strings", () => {
  it("rejects malformed JSON with 400 request/malformed-json", async () => {
    const res = await project.client.request("POST", `/projects/${project.projectId}/folders`, {
      body: '{"name": "unterminated',
      headers: { "Content-Type": "application/json" },
    });
    expectError(res, 400, "request/malformed-json");
  });

  it("rejects a missing body with 400 request/validation-failed", async () => {
    const res = await project.client.request("POST", `/projects/${project.projectId}/folders`, {
      headers: { "Content-Type": "application/json" },
    });
    expectError(res, 400, "request/validation-failed");
  });

  it("rejects JSON that is not an object with 400 request/validation-failed", async () => {
    for (const body of ["null", "[]", '"name"', "42"]) {
      const res = await project.client.request("POST", `/projects/${project.projectId}/folders`, {
        body,
        headers: { "Content-Type": "application/json" },
      });
      expectError(res, 400, "request/validation-failed");
    }
  });

  it("rejects unknown body fields and names them", async () => {
    const res = await project.client.post(`/projects/${project.projectId}/folders`, { name: "ok", colour: "red" });
    expect(expectError(res, 400, "request/validation-failed").message).toContain("colour");
  });

  it("rejects a top-level isFinal on Create Asset and names it", async () => {
    const res = await project.client.post(`/projects/${project.projectId}/assets`, {
      name: "note.txt",
      content: { plainText: "hello", type: "text/plain" },
      isFinal: true,
    });
    expect(expectError(res, 400, "request/validation-failed").message).toContain("isFinal");
  });

  it("names the invalid field in the message", async () => {
    const res = await project.client.post(`/projects/${project.projectId}/folders`, { name: "x".repeat(101) });
    expect(expectError(res, 400, "request/validation-failed").message).toContain("body.name");
  });

  it("rejects unknown query parameters", async () => {
    const list = await project.client.get(`/projects/${project.projectId}/assets/page?pageSize=5&colour=red`);
    expect(expectError(list, 400, "request/validation-failed").message).toContain("colour");
    // Also on endpoints that take no query parameters at all.
    const folders = await project.client.get(`/projects/${project.projectId}/folders?colour=red`);
    expect(expectError(folders, 400, "request/validation-failed").message).toContain("colour");
  });

  it("refuses a JSON body declared larger than the limit with 413 request/body-too-large, without reading it", async () => {
    // SIEVE_MAX_JSON_BODY_BYTES defaults to 64 MiB: declare one byte more, send two, and expect the
    // answer before the rest would arrive (the streaming cap itself is unit-tested in lib/http/body.test.ts).
    const declared = 64 * 1024 * 1024 + 1;
    const res = await new Promise<ApiResponse>((resolve, reject) => {
      const req = http.request(`${baseUrl}/v1/projects/${project.projectId}/folders`, {
        method: "POST",
        headers: { "X-Api-Key": project.apiKey, "Content-Type": "application/json", "Content-Length": String(declared) },
      });
      req.on("response", (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (c: Buffer) => chunks.push(c));
        response.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          const headers = new Headers();
          for (const [name, value] of Object.entries(response.headers)) if (typeof value === "string") headers.set(name, value);
          resolve({ status: response.statusCode ?? 0, headers, text, body: JSON.parse(text) });
          req.destroy();
        });
      });
      req.on("error", reject);
      req.write("{}");
    });
    expectError(res, 413, "request/body-too-large");
  });
});

describe("authentication", () => {
  const path = () => `/projects/${project.projectId}/folders`;

  it("returns 401 auth/missing-token without a key", async () => {
    expectError(await new ApiClient(null).get(path()), 401, "auth/missing-token");
    expectError(await new ApiClient("").get(path()), 401, "auth/missing-token");
  });

  it("returns 401 auth/invalid-api-key for an unknown key", async () => {
    expectError(await new ApiClient("sieve_not-a-real-key").get(path()), 401, "auth/invalid-api-key");
    expectError(await new ApiClient("garbage").post(path(), { name: "x" }), 401, "auth/invalid-api-key");
  });

  it("checks the key before anything else (unknown project, malformed id, bad body)", async () => {
    const bad = new ApiClient("sieve_not-a-real-key");
    expectError(await bad.get(`/projects/${randomUUID()}/folders`), 401, "auth/invalid-api-key");
    expectError(await bad.get("/folders/not-a-uuid"), 401, "auth/invalid-api-key");
    expectError(await bad.post(path(), { bogus: true }), 401, "auth/invalid-api-key");
  });

  it("returns 401 auth/invalid-api-key for an expired key, and accepts one that has not expired", async () => {
    const expired = await newKey(project.projectId, ["assets:read"], { expiresAt: new Date(Date.now() - 1000) });
    expectError(await expired.client.get(path()), 401, "auth/invalid-api-key");
    const live = await newKey(project.projectId, ["assets:read"], { expiresAt: new Date(Date.now() + 3_600_000) });
    expect((await live.client.get(path())).status).toBe(200);
  });

  it("returns 401 auth/invalid-api-key once a key is revoked with the admin CLI", async () => {
    const key = await newKey(project.projectId, ["assets:read"]);
    expect((await key.client.get(path())).status).toBe(200);
    const revoked = cliJson(await runCli(["revoke-key", "--key", key.apiKey]));
    expect(revoked).toMatchObject({ keyId: key.id, projectId: project.projectId });
    expect(typeof revoked.revokedAt).toBe("number");
    expectError(await key.client.get(path()), 401, "auth/invalid-api-key");
    // The project's other keys keep working.
    expect((await project.client.get(path())).status).toBe(200);
  });
});

describe("project access and permissions", () => {
  it("returns 403 auth/project-mismatch for another project's resources", async () => {
    expectError(await project.client.get(`/projects/${other.projectId}/folders`), 403, "auth/project-mismatch");
    expectError(await project.client.post(`/projects/${other.projectId}/folders`, { name: "x" }), 403, "auth/project-mismatch");
    expectError(await project.client.get(`/projects/${other.projectId}/assets/page`), 403, "auth/project-mismatch");
    const folder = await other.client.post(`/projects/${other.projectId}/folders`, { name: "theirs" });
    expect(folder.status).toBe(200);
    expectError(await project.client.get(`/folders/${folder.body.id}`), 403, "auth/project-mismatch");
  });

  it("returns 404 project/not-found for a project that does not exist", async () => {
    expectError(await project.client.get(`/projects/${randomUUID()}/folders`), 404, "project/not-found");
    expectError(await project.client.post(`/projects/${randomUUID()}/assets?queue=true`, {}), 404, "project/not-found");
  });

  it("gives a malformed id the resource's 404 code, not a validation error", async () => {
    expectError(await project.client.get("/projects/not-a-uuid/folders"), 404, "project/not-found");
    expectError(await project.client.get(`/projects/${project.projectId}x/folders`), 404, "project/not-found");
    expectError(await project.client.get("/folders/not-a-uuid"), 404, "folder/not-found");
    expectError(await project.client.post("/folders/123/move", { parentId: null }), 404, "folder/not-found");
    expectError(await project.client.get("/assets/not-a-uuid"), 404, "asset/not-found");
  });

  it("accepts UUIDs in any letter case", async () => {
    const res = await project.client.get(`/projects/${project.projectId.toUpperCase()}/folders`);
    expect(res.status).toBe(200);
  });

  it("returns 403 auth/insufficient-permissions for a key without the endpoint's permission", async () => {
    const reader = await newKey(project.projectId, ["assets:read"]);
    const res = await reader.client.post(`/projects/${project.projectId}/folders`, { name: "not allowed" });
    expect(expectError(res, 403, "auth/insufficient-permissions").message).toContain("assets:write");
    // Permission is checked before the body is validated.
    expectError(await reader.client.post(`/projects/${project.projectId}/folders`, { bogus: 1 }), 403, "auth/insufficient-permissions");
    // Reading is allowed, and nothing was created.
    const list = await reader.client.get(`/projects/${project.projectId}/folders`);
    expect(list.status).toBe(200);
    expect(list.body.folders.map((f: { name: string }) => f.name)).not.toContain("not allowed");

    const eventsOnly = await newKey(project.projectId, ["events:read"]);
    expectError(await eventsOnly.client.get(`/projects/${project.projectId}/folders`), 403, "auth/insufficient-permissions");
  });
});

describe("rate limiting", () => {
  it("returns 429 rate-limit/exceeded with Retry-After once a key's bucket is empty, then recovers", async () => {
    const limited = await newKey(project.projectId, ["assets:read"], { rateLimitPerSecond: 2 });
    const path = `/projects/${project.projectId}/folders`;
    const responses = await Promise.all(Array.from({ length: 6 }, () => limited.client.get(path)));
    const ok = responses.filter((r) => r.status === 200);
    const throttled = responses.filter((r) => r.status === 429);
    expect(ok.length + throttled.length).toBe(6);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    expect(ok.length).toBeLessThanOrEqual(3); // burst 2, plus at most one refilled token
    for (const res of throttled) {
      expectError(res, 429, "rate-limit/exceeded");
      const retryAfter = Number(res.headers.get("retry-after"));
      expect(Number.isInteger(retryAfter)).toBe(true);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(res.headers.get("x-ratelimit-limit")).toBe("2");
      expect(res.headers.get("x-ratelimit-remaining")).toBe("0");
    }

    // Other keys have their own buckets.
    expect((await project.client.get(path)).status).toBe(200);
    // Permission is checked before the rate limit.
    expectError(await limited.client.post(path, { name: "x" }), 403, "auth/insufficient-permissions");

    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await limited.client.get(path)).status).toBe(200);
  });
});

describe("OpenAPI document", () => {
  it("is served without a key as OpenAPI 3.1.0 JSON, version 1.0.0", async () => {
    const res = await new ApiClient(null).get("/openapi.json");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(res.headers.get("x-request-id")).toMatch(UUID_RE);
    expect(res.body.openapi).toBe("3.1.0");
    expect(res.body.info.version).toBe("1.0.0");
    expect(Object.keys(res.body.paths)).toEqual(
      expect.arrayContaining(["/health-check", "/projects/{projectId}/folders", "/folders/{folderId}", "/folders/{folderId}/move"]),
    );
  });
});
