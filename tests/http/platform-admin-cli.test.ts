import { randomUUID } from "node:crypto";
import { PERMISSIONS } from "@/lib/auth/permissions";
import { describe, expect, it } from "vitest";
import { ApiClient, expectError } from "./support";
import { UUID_RE, runCli, cliJson, cliError } from "./platform-support";

/** The admin CLI that hands out projects and keys, run as a child process against the test database. */

describe("admin CLI", () => {
  it("create-project prints one JSON line with projectId, apiKey and permissions; the key works", async () => {
    const result = await runCli(["create-project", "--name", "CLI project"], { viaNpm: true });
    const created = cliJson(result);
    expect(Object.keys(created).sort()).toEqual(["apiKey", "permissions", "projectId"]);
    expect(created.projectId).toMatch(UUID_RE);
    expect(created.apiKey).toMatch(/^sieve_/);
    expect(created.permissions).toEqual([...PERMISSIONS]);
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
