import { beforeAll, describe, expect, it } from "vitest";
import { ApiClient, baseUrl, expectError, expectOk, newProject, type TestProject } from "./support";
import { portal, portalUser, type PortalUser } from "./portal-support";
import { consoleCast } from "./portal-console-support";

/** The owner console's API keys (/api/portal/projects/:projectId/keys): admins only, secret once, revoke at once. */

let p: TestProject;
let adminUser: PortalUser;
let member: PortalUser;
let viewer: PortalUser;
let outsider: PortalUser;

beforeAll(async () => {
  p = await newProject();
  ({ admin: adminUser, member, viewer, outsider } = await consoleCast(p));
});

const keysPath = () => `/projects/${p.projectId}/keys`;
const create = (cookie: string, json: unknown) => portal(cookie, "POST", keysPath(), { json });
const list = async () => expectOk<{ keys: Record<string, any>[] }>(await portal(adminUser.cookie, "GET", keysPath())).keys;

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 5_000;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    value = await read();
  }
  return value;
}

describe("creating and listing keys", () => {
  it("creates a key with the chosen permissions and answers its secret only once", async () => {
    const res = await create(adminUser.cookie, { name: "Uploader", permissions: ["assets:read", "assets:write"], rateLimitPerSecond: 20 });
    expect(res.status).toBe(201);
    const { key, secret } = res.body as { key: Record<string, any>; secret: string };
    expect(secret).toMatch(/^sieve_/);
    expect(key).toEqual({
      id: expect.any(String),
      name: "Uploader",
      prefix: secret.slice(0, key.prefix.length),
      permissions: ["assets:read", "assets:write"],
      rateLimitPerSecond: 20,
      createdAt: expect.any(Number),
      lastUsedAt: null,
      expiresAt: null,
      revokedAt: null,
    });
    const listed = await portal(adminUser.cookie, "GET", keysPath());
    expect(listed.text).not.toContain(secret);
    expect(listed.text).not.toMatch(/keyHash|key_hash/);
    expect((listed.body as { keys: { id: string }[] }).keys.map((k) => k.id)).toContain(key.id);

    // The key grants exactly what was chosen.
    const client = new ApiClient(secret);
    expect((await client.get(`/projects/${p.projectId}/folders`)).status).toBe(200);
    expectError(await client.get(`/projects/${p.projectId}/events`), 403, "auth/insufficient-permissions");
  });

  it("records when a key was last used, at most once a minute", async () => {
    const { key, secret } = (await create(adminUser.cookie, { name: "Reader", permissions: ["assets:read"] })).body as { key: { id: string }; secret: string };
    const client = new ApiClient(secret);
    const before = Date.now();
    expect((await client.get(`/projects/${p.projectId}/folders`)).status).toBe(200);
    const used = await until(async () => (await list()).find((k) => k.id === key.id), (k) => k?.lastUsedAt !== null);
    expect(used?.lastUsedAt).toBeGreaterThanOrEqual(before - 1_000);
    expect((await client.get(`/projects/${p.projectId}/folders`)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await list()).find((k) => k.id === key.id)?.lastUsedAt).toBe(used?.lastUsedAt);
  });

  it("refuses bad input with the spec's error body", async () => {
    const bad = [
      {},
      { name: "", permissions: ["assets:read"] },
      { name: "x", permissions: [] },
      { name: "x", permissions: ["assets:everything"] },
      { name: "x", permissions: ["assets:read", "assets:read"] },
      { name: "x", permissions: ["assets:read"], rateLimitPerSecond: 0 },
      { name: "x", permissions: ["assets:read"], rateLimitPerSecond: 1.5 },
      { name: "x".repeat(101), permissions: ["assets:read"] },
      { name: "x", permissions: ["assets:read"], secret: "mine" },
    ];
    for (const json of bad) expectError(await create(adminUser.cookie, json), 400, "request/validation-failed");
    const malformed = await portal(adminUser.cookie, "POST", keysPath(), { headers: { "Content-Type": "application/json" }, json: undefined });
    expect(malformed.status).toBe(400);
  });
});

describe("revoking keys", () => {
  it("revokes a cached key effective on its very next request", async () => {
    const { key, secret } = (await create(adminUser.cookie, { name: "Doomed", permissions: ["assets:read"] })).body as { key: { id: string }; secret: string };
    const client = new ApiClient(secret);
    const path = `/projects/${p.projectId}/folders`;
    for (let i = 0; i < 5; i++) expect((await client.get(path)).status).toBe(200); // cached now
    const revoked = expectOk<{ key: Record<string, any> }>(await portal(adminUser.cookie, "POST", `${keysPath()}/${key.id}/revoke`, { json: {} }));
    expect(revoked.key.revokedAt).toEqual(expect.any(Number));
    expectError(await client.get(path), 401, "auth/invalid-api-key");
    // Revoking again changes nothing; the list shows it revoked, after the live keys.
    const again = expectOk<{ key: Record<string, any> }>(await portal(adminUser.cookie, "POST", `${keysPath()}/${key.id}/revoke`, { json: {} }));
    expect(again.key.revokedAt).toBe(revoked.key.revokedAt);
    const keys = await list();
    const firstRevoked = keys.findIndex((k) => k.revokedAt !== null);
    expect(keys.slice(firstRevoked).every((k) => k.revokedAt !== null)).toBe(true);
  });

  it("answers not-found for unknown or malformed ids and refuses another project's key", async () => {
    expectError(await portal(adminUser.cookie, "POST", `${keysPath()}/00000000-0000-4000-8000-000000000000/revoke`, { json: {} }), 404, "api-key/not-found");
    expectError(await portal(adminUser.cookie, "POST", `${keysPath()}/not-a-uuid/revoke`, { json: {} }), 404, "api-key/not-found");
    const other = await newProject();
    const otherAdmin = await portalUser(other, "admin");
    const { key } = (await portal(otherAdmin.cookie, "POST", `/projects/${other.projectId}/keys`, { json: { name: "theirs", permissions: ["assets:read"] } })).body as { key: { id: string } };
    expectError(await portal(adminUser.cookie, "POST", `${keysPath()}/${key.id}/revoke`, { json: {} }), 403, "auth/project-mismatch");
    expect((await other.client.get(`/projects/${other.projectId}/folders`)).status).toBe(200);
  });
});

describe("who may manage keys", () => {
  it("refuses members and viewers (403) and outsiders (404), for reading and writing", async () => {
    const { key } = (await create(adminUser.cookie, { name: "Guarded", permissions: ["assets:read"] })).body as { key: { id: string } };
    for (const user of [member, viewer]) {
      expectError(await portal(user.cookie, "GET", keysPath()), 403, "auth/insufficient-permissions");
      expectError(await create(user.cookie, { name: "mine", permissions: ["assets:read"] }), 403, "auth/insufficient-permissions");
      expectError(await portal(user.cookie, "POST", `${keysPath()}/${key.id}/revoke`, { json: {} }), 403, "auth/insufficient-permissions");
    }
    expectError(await portal(outsider.cookie, "GET", keysPath()), 404, "project/not-found");
    expectError(await portal(null, "GET", keysPath()), 401, "auth/not-signed-in");
    expect((await list()).find((k) => k.id === key.id)?.revokedAt).toBeNull();
  });

  it("lets the project's owner in as an admin", async () => {
    const { sessionCookie } = await import("./portal-support");
    const owner = await sessionCookie(p.ownerUserId);
    expect((await portal(owner, "GET", keysPath())).status).toBe(200);
  });

  it("refuses cross-site writes", async () => {
    const json = { name: "csrf", permissions: ["assets:read"] };
    expectError(await portal(adminUser.cookie, "POST", keysPath(), { json, headers: { Origin: "https://evil.example" } }), 403, "auth/cross-site-request");
    const form = await fetch(`${baseUrl}/api/portal${keysPath()}`, {
      method: "POST",
      headers: { Cookie: adminUser.cookie, Origin: baseUrl, "Content-Type": "text/plain" },
      body: JSON.stringify(json),
    });
    expect(form.status).toBe(403);
    expect((await list()).some((k) => k.name === "csrf")).toBe(false);
  });
});

describe("the key-change notification", () => {
  it("is not sent for a recorded use (caches stay warm) but is for a revocation", async () => {
    const { default: pg } = await import("pg");
    const { db } = await import("@/lib/db/client");
    const { key } = (await create(adminUser.cookie, { name: "Watched", permissions: ["assets:read"] })).body as { key: { id: string } };
    const listener = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await listener.connect();
    const { keyHash } = await db().apiKey.findUniqueOrThrow({ where: { id: key.id }, select: { keyHash: true } });
    // Other test files change their own keys meanwhile: count only this key's notifications.
    const heard: string[] = [];
    listener.on("notification", (n) => {
      if (n.payload === keyHash) heard.push(n.payload);
    });
    try {
      await listener.query("LISTEN sieve_api_keys");
      await db().apiKey.update({ where: { id: key.id }, data: { lastUsedAt: new Date() } });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(heard).toEqual([]);
      await db().apiKey.update({ where: { id: key.id }, data: { revokedAt: new Date() } });
      await until(async () => heard.length, (n) => n > 0);
      expect(heard).toHaveLength(1);
    } finally {
      await listener.end();
    }
  });
});
