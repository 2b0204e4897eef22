import { describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { expectError, newKey, newProject, type ApiClient } from "./support";

/** The server caches authenticated keys; every change to a key must reach it at once. */
async function statusSoon(client: ApiClient, path: string, expected: number): Promise<number> {
  const deadline = Date.now() + 2_000;
  let status = 0;
  while (Date.now() < deadline) {
    status = (await client.get(path)).status;
    if (status === expected) return status;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return status;
}

describe("API key cache", () => {
  it("forgets a cached key as soon as it is revoked in the database", async () => {
    const { projectId } = await newProject();
    const key = await newKey(projectId, ["assets:read"]);
    const path = `/projects/${projectId}/folders`;
    for (let i = 0; i < 5; i++) expect((await key.client.get(path)).status).toBe(200); // now cached
    await db().apiKey.update({ where: { id: key.id }, data: { revokedAt: new Date() } });
    expect(await statusSoon(key.client, path, 401)).toBe(401);
    expectError(await key.client.get(path), 401, "auth/invalid-api-key");
  });

  it("applies permission changes and expiry of cached keys", async () => {
    const { projectId } = await newProject();
    const key = await newKey(projectId, ["assets:read"]);
    const path = `/projects/${projectId}/folders`;
    expect((await key.client.get(path)).status).toBe(200);
    expect((await key.client.get(path)).status).toBe(200);
    await db().apiKey.update({ where: { id: key.id }, data: { permissions: ["events:read"] } });
    expect(await statusSoon(key.client, path, 403)).toBe(403);

    await db().apiKey.update({ where: { id: key.id }, data: { permissions: ["assets:read"], expiresAt: new Date(Date.now() + 1_000) } });
    expect(await statusSoon(key.client, path, 200)).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expectError(await key.client.get(path), 401, "auth/invalid-api-key");
  });

  it("forgets keys of a deleted project", async () => {
    const { projectId, client } = await newProject();
    const path = `/projects/${projectId}/folders`;
    expect((await client.get(path)).status).toBe(200);
    expect((await client.get(path)).status).toBe(200);
    await db().project.delete({ where: { id: projectId } });
    expect(await statusSoon(client, path, 401)).toBe(401);
  });
});
