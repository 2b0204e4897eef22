import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import http from "node:http";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { ApiClient, baseUrl, expectError, newKey, newProject, type ApiResponse, type TestProject } from "./support";

/**
 * Behaviour shared by every endpoint: request ids, unknown paths and methods, JSON parsing and
 * validation, authentication, project access, permissions, rate limiting, idempotency, the OpenAPI
 * document, and the admin CLI that hands out projects and keys.
 */

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the admin CLI against the test server's database (DATABASE_URL makes it join, not start, PostgreSQL). */
function runCli(args: string[], { viaNpm = false } = {}): Promise<CliResult> {
  const [command, argv] = viaNpm
    ? ["npm", ["run", "--silent", "admin", "--", ...args]]
    : [process.execPath, ["--import", "tsx", "scripts/admin.ts", ...args]];
  return new Promise((resolve, reject) => {
    const child = spawn(command, argv, {
      cwd: repoRoot,
      env: { ...process.env, DATABASE_URL: inject("databaseUrl") },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** The single JSON line a successful CLI command prints. */
function cliJson(result: CliResult): any {
  if (result.code !== 0) throw new Error(`CLI failed (${result.code}): ${result.stderr}`);
  const lines = result.stdout.split("\n").filter((line) => line.length > 0);
  expect(lines).toHaveLength(1);
  expect(result.stdout.endsWith("\n")).toBe(true);
  return JSON.parse(lines[0] ?? "");
}

/** The message of the JSON error line a failed CLI command prints on stderr. */
function cliError(result: CliResult): string {
  const lines = result.stderr.split("\n").filter((line) => line.startsWith("{"));
  expect(lines).toHaveLength(1);
  const parsed = JSON.parse(lines[0] ?? "") as { error?: unknown };
  expect(typeof parsed.error).toBe("string");
  return parsed.error as string;
}

/** A replayed response: the stored status and body, a fresh X-Request-Id, and Idempotent-Replayed. */
function expectReplayOf(replay: ApiResponse, first: ApiResponse) {
  expect(replay.status).toBe(first.status);
  expect(replay.text).toBe(first.text);
  expect(replay.headers.get("idempotent-replayed")).toBe("true");
  expect(replay.headers.get("content-type")).toBe(first.headers.get("content-type"));
  expect(replay.headers.get("x-request-id")).toMatch(UUID_RE);
  expect(replay.headers.get("x-request-id")).not.toBe(first.headers.get("x-request-id"));
}

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

describe("idempotency", () => {
  it("replays the first response with Idempotent-Replayed: true and creates one folder", async () => {
    const { client, projectId } = await newProject();
    const key = randomUUID();
    const first = await client.post(`/projects/${projectId}/folders`, { name: "once" }, { "Idempotency-Key": key });
    expect(first.status).toBe(200);
    expect(first.headers.get("idempotent-replayed")).toBeNull();

    const replay = await client.post(`/projects/${projectId}/folders`, { name: "once" }, { "Idempotency-Key": key });
    expectReplayOf(replay, first);
    expect(replay.body).toEqual(first.body);

    const list = await client.get(`/projects/${projectId}/folders`);
    expect(list.body.folders).toEqual([first.body]);
  });

  it("refuses the same key with a different request with 422 idempotency/key-reused", async () => {
    const { client, projectId } = await newProject();
    const key = randomUUID();
    expect((await client.post(`/projects/${projectId}/folders`, { name: "a" }, { "Idempotency-Key": key })).status).toBe(200);
    expectError(await client.post(`/projects/${projectId}/folders`, { name: "b" }, { "Idempotency-Key": key }), 422, "idempotency/key-reused");
    // A different query string is a different request too.
    const asset = { name: "n.txt", content: { plainText: "hello", type: "text/plain" } };
    expect((await client.post(`/projects/${projectId}/assets?queue=true`, asset, { "Idempotency-Key": key })).status).toBe(200);
    expectError(await client.post(`/projects/${projectId}/assets?queue=false`, asset, { "Idempotency-Key": key }), 422, "idempotency/key-reused");
    const list = await client.get(`/projects/${projectId}/folders`);
    expect(list.body.folders.map((f: { name: string }) => f.name)).toEqual(["a"]);
  });

  it("scopes keys to the API key and the operation", async () => {
    const { client, projectId } = await newProject();
    const second = await newKey(projectId, ["assets:read", "assets:write"]);
    const key = randomUUID();
    const a = await client.post(`/projects/${projectId}/folders`, { name: "a" }, { "Idempotency-Key": key });
    const b = await second.client.post(`/projects/${projectId}/folders`, { name: "b" }, { "Idempotency-Key": key });
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(b.headers.get("idempotent-replayed")).toBeNull();
    // The same key on another idempotent operation is a different key.
    const asset = await client.post(
      `/projects/${projectId}/assets?queue=true`,
      { name: "n.txt", content: { plainText: "hello", type: "text/plain" } },
      { "Idempotency-Key": key },
    );
    expect(asset.status).toBe(200);
    expect(asset.headers.get("idempotent-replayed")).toBeNull();
  });

  it("stores error responses too, replaying them with the first request's traceId", async () => {
    const { client, projectId } = await newProject();
    const existing = await client.post(`/projects/${projectId}/folders`, { name: "taken" });
    const key = randomUUID();
    const first = await client.post(`/projects/${projectId}/folders`, { name: "taken" }, { "Idempotency-Key": key });
    const original = expectError(first, 409, "folder/duplicate-name");
    // Even after the conflict is gone, the retry gets the stored answer.
    expect((await client.delete(`/folders/${existing.body.id}`)).status).toBe(200);
    const replay = await client.post(`/projects/${projectId}/folders`, { name: "taken" }, { "Idempotency-Key": key });
    expectReplayOf(replay, first);
    expect(replay.body).toEqual(original);
    expect(replay.body.traceId).toBe(first.headers.get("x-request-id"));
  });

  it("stores nothing for requests rejected before they run", async () => {
    const { client, projectId } = await newProject();
    const key = randomUUID();
    expectError(await client.post(`/projects/${projectId}/folders`, { name: "" }, { "Idempotency-Key": key }), 400, "request/validation-failed");
    const reader = await newKey(projectId, ["assets:read"]);
    expectError(await reader.client.post(`/projects/${projectId}/folders`, { name: "x" }, { "Idempotency-Key": key }), 403, "auth/insufficient-permissions");
    const res = await client.post(`/projects/${projectId}/folders`, { name: "valid" }, { "Idempotency-Key": key });
    expect(res.status).toBe(200);
    expect(res.headers.get("idempotent-replayed")).toBeNull();
  });

  it("rejects an invalid Idempotency-Key with 400 idempotency/invalid-key and creates nothing", async () => {
    const { client, projectId } = await newProject();
    for (const key of ["k".repeat(300), "has space", ""]) {
      expectError(await client.post(`/projects/${projectId}/folders`, { name: "x" }, { "Idempotency-Key": key }), 400, "idempotency/invalid-key");
    }
    expect((await client.post(`/projects/${projectId}/folders`, { name: "x" }, { "Idempotency-Key": "k".repeat(255) })).status).toBe(200);
    // Endpoints that are not idempotent ignore the header.
    const list = await client.get(`/projects/${projectId}/folders`, { "Idempotency-Key": "k".repeat(300) });
    expect(list.status).toBe(200);
    expect(list.body.folders).toHaveLength(1);
  });

  it("lets exactly one of many concurrent duplicates run; the others wait or get the replay", async () => {
    const { client, projectId } = await newProject();
    const key = randomUUID();
    const body = { name: "big.txt", content: { plainText: "lorem ipsum dolor sit amet\n".repeat(80_000), type: "text/plain" } };
    const responses = await Promise.all(
      Array.from({ length: 10 }, () => client.post(`/projects/${projectId}/assets?queue=true`, body, { "Idempotency-Key": key })),
    );
    const fresh = responses.filter((r) => r.headers.get("idempotent-replayed") === null);
    expect(fresh.filter((r) => r.status === 200)).toHaveLength(1);
    const original = fresh.find((r) => r.status === 200)!;
    for (const res of responses) {
      if (res === original) continue;
      if (res.status === 409) expectError(res, 409, "idempotency/request-in-progress");
      else expectReplayOf(res, original);
    }

    const page = await client.get(`/projects/${projectId}/assets/page`);
    expect(page.status).toBe(200);
    expect(page.body.total).toBe(1);
    expect(page.body.items[0].id).toBe(original.body.id);
    // Once finished, a retry is a replay of that one asset.
    const retry = await client.post(`/projects/${projectId}/assets?queue=true`, body, { "Idempotency-Key": key });
    expectReplayOf(retry, original);
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

describe("admin CLI", () => {
  it("create-project prints one JSON line with projectId, apiKey and permissions; the key works", async () => {
    const result = await runCli(["create-project", "--name", "CLI project"], { viaNpm: true });
    const created = cliJson(result);
    expect(Object.keys(created).sort()).toEqual(["apiKey", "permissions", "projectId"]);
    expect(created.projectId).toMatch(UUID_RE);
    expect(created.apiKey).toMatch(/^sieve_/);
    expect(created.permissions).toEqual(["assets:read", "assets:write", "assets:download", "lenses:write", "events:read"]);
    const client = new ApiClient(created.apiKey);
    expect((await client.post(`/projects/${created.projectId}/folders`, { name: "from cli" })).status).toBe(200);
  });

  it("honours --permissions, refuses unknown permissions, and creates and lists keys and projects", async () => {
    const [limited, unknown] = await Promise.all([
      runCli(["create-project", "--name", "Limited", "--permissions", "assets:read,events:read"]),
      runCli(["create-project", "--name", "Typo", "--permissions", "assets:read,assets:wirte"]),
    ]);
    const created = cliJson(limited);
    expect(created.permissions).toEqual(["assets:read", "events:read"]);
    const client = new ApiClient(created.apiKey);
    expect((await client.get(`/projects/${created.projectId}/folders`)).status).toBe(200);
    expectError(await client.post(`/projects/${created.projectId}/folders`, { name: "x" }), 403, "auth/insufficient-permissions");

    expect(unknown.code).not.toBe(0);
    expect(unknown.stdout).toBe("");
    expect(cliError(unknown)).toContain("assets:wirte");

    const [keyResult, listResult, missing] = await Promise.all([
      runCli(["create-key", "--project", created.projectId, "--permissions", "assets:write", "--rate-limit", "50"]),
      runCli(["list-projects"]),
      runCli(["create-key", "--project", randomUUID()]),
    ]);
    const key = cliJson(keyResult);
    expect(key).toMatchObject({ projectId: created.projectId, permissions: ["assets:write"] });
    expect(key.keyId).toMatch(UUID_RE);
    const writer = new ApiClient(key.apiKey);
    expect((await writer.post(`/projects/${created.projectId}/folders`, { name: "by new key" })).status).toBe(200);
    expectError(await writer.get(`/projects/${created.projectId}/folders`), 403, "auth/insufficient-permissions");

    const { projects } = cliJson(listResult);
    expect(projects).toEqual(expect.arrayContaining([expect.objectContaining({ projectId: created.projectId, name: "Limited" })]));

    expect(missing.code).not.toBe(0);
    expect(missing.stdout).toBe("");
    expect(cliError(missing)).toContain("not found");
  });

  it("fails with a non-zero exit for unknown commands and options", async () => {
    const [command, option] = await Promise.all([runCli(["make-project"]), runCli(["list-projects", "--verbose"])]);
    expect(command.code).not.toBe(0);
    expect(command.stdout).toBe("");
    expect(command.stderr).toContain("create-project");
    expect(option.code).not.toBe(0);
    expect(option.stdout).toBe("");
    expect(cliError(option)).toContain("--verbose");
  });
});
