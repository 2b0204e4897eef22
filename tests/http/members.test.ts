import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { verifyPassword } from "@/lib/auth/passwords";
import { db } from "@/lib/db/client";
import { addProjectMember, AlreadyMemberError } from "@/lib/projects/members";
import { allEvents, factsOf } from "./events-support";
import { cliError, cliJson, runCli, UUID_RE } from "./platform-support";
import { newProject, type TestProject } from "./support";

/** Users and project membership from the admin CLI, and the `project.member-joined` event. */

const email = () => `user-${randomUUID()}@example.com`;

async function memberEvents(p: TestProject, count: number) {
  return (await allEvents(p, count, "type=project.member-joined")).filter((e) => e.type === "project.member-joined");
}

describe("admin CLI: users and members", () => {
  it("create-user --project creates the user, the membership and one project.member-joined event", async () => {
    const p = await newProject();
    const address = email();
    const result = await runCli(["create-user", "--email", address, "--password", "s3cret-pass", "--name", "Ann Example", "--project", p.projectId, "--role", "viewer"], { viaNpm: true });
    const created = cliJson(result);
    expect(Object.keys(created)).toEqual(["userId"]);
    expect(created.userId).toMatch(UUID_RE);

    const user = await db().user.findUniqueOrThrow({ where: { id: created.userId } });
    expect(user).toMatchObject({ email: address, name: "Ann Example" });
    expect(user.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(await verifyPassword("s3cret-pass", user.passwordHash as string)).toBe(true);
    expect(await verifyPassword("wrong-pass", user.passwordHash as string)).toBe(false);
    const membership = await db().projectMember.findUniqueOrThrow({ where: { projectId_userId: { projectId: p.projectId, userId: created.userId } } });
    expect(membership.role).toBe("viewer");

    const [event] = await memberEvents(p, 1);
    expect(factsOf(event)).toEqual([
      ["member-user-id", created.userId],
      ["member-name", "Ann Example"],
      ["role", "viewer"],
      ["invited-by-user-id", null],
    ]);
    expect(event).toMatchObject({ projectId: p.projectId, userId: created.userId, severity: "low", notify: false, assetId: null, asset: null });

    // Adding them again is refused, and records nothing.
    const again = await runCli(["add-member", "--project", p.projectId, "--user", created.userId, "--role", "admin"]);
    expect(again.code).not.toBe(0);
    expect(again.stdout).toBe("");
    expect(cliError(again)).toContain("already a member");
    expect(await memberEvents(p, 1)).toHaveLength(1);
    expect((await db().projectMember.findUniqueOrThrow({ where: { projectId_userId: { projectId: p.projectId, userId: created.userId } } })).role).toBe("viewer");
  });

  it("add-member adds an existing user and prints projectId, userId and role", async () => {
    const p = await newProject();
    const { userId } = cliJson(await runCli(["create-user", "--email", email(), "--password", "another-pass", "--name", "Bob"]));
    expect(await db().projectMember.count({ where: { userId } })).toBe(0);
    const added = cliJson(await runCli(["add-member", "--project", p.projectId, "--user", userId.toUpperCase(), "--role", "admin"]));
    expect(added).toEqual({ projectId: p.projectId, userId, role: "admin" });
    const [event] = await memberEvents(p, 1);
    expect(factsOf(event)).toEqual([
      ["member-user-id", userId],
      ["member-name", "Bob"],
      ["role", "admin"],
      ["invited-by-user-id", null],
    ]);
  });

  it("refuses bad input with one JSON error line and leaves nothing behind", async () => {
    const p = await newProject();
    const taken = email();
    cliJson(await runCli(["create-user", "--email", taken, "--password", "password-1", "--name", "Taken"]));
    const unknownProjectEmail = email();
    const cases: [string[], string][] = [
      [["create-user", "--email", taken.toUpperCase(), "--password", "password-1", "--name", "Again"], "already exists"],
      [["create-user", "--email", email(), "--password", "short", "--name", "X"], "--password"],
      [["create-user", "--email", "not-an-email", "--password", "password-1", "--name", "X"], "--email"],
      [["create-user", "--email", email(), "--password", "password-1"], "--name"],
      [["create-user", "--email", email(), "--password", "password-1", "--name", "X", "--role", "admin"], "--project"],
      [["create-user", "--email", email(), "--password", "password-1", "--name", "X", "--project", p.projectId, "--role", "owner"], "--role"],
      [["create-user", "--email", unknownProjectEmail, "--password", "password-1", "--name", "X", "--project", randomUUID(), "--role", "member"], "not found"],
      [["add-member", "--project", p.projectId, "--user", randomUUID(), "--role", "member"], "not found"],
      [["add-member", "--project", p.projectId, "--user", "nope", "--role", "member"], "--user"],
      [["add-member", "--project", p.projectId, "--user", randomUUID()], "--role"],
      [["create-user", "--email", email(), "--password", "password-1", "--name", "X", "--project", p.projectId, "--role", "custom"], "--permissions"],
      [["create-user", "--email", email(), "--password", "password-1", "--name", "X", "--project", p.projectId, "--role", "custom", "--permissions", "assets:read,assets:rule"], "Unknown permission"],
      [["create-user", "--email", email(), "--password", "password-1", "--name", "X", "--project", p.projectId, "--role", "viewer", "--permissions", "assets:review"], "only for --role custom"],
    ];
    const results = await Promise.all(cases.map(([args]) => runCli(args)));
    results.forEach((result, i) => {
      const [args, message] = cases[i]!;
      expect(result.code, args.join(" ")).not.toBe(0);
      expect(result.stdout).toBe("");
      expect(cliError(result), args.join(" ")).toContain(message);
    });
    // The membership failed, so the user was not created either (one transaction).
    expect(await db().user.count({ where: { email: unknownProjectEmail } })).toBe(0);
    expect(await memberEvents(p, 0)).toEqual([]);
  });

  it("addProjectMember records who invited the member (the portal's invitations)", async () => {
    const p = await newProject();
    const invitee = await db().user.create({ data: { email: email(), name: null } });
    const added = await addProjectMember({ projectId: p.projectId, userId: invitee.id, role: "custom", invitedByUserId: p.ownerUserId });
    expect(added).toEqual({ projectId: p.projectId, userId: invitee.id, role: "custom" });
    await expect(addProjectMember({ projectId: p.projectId, userId: invitee.id, role: "member", invitedByUserId: null })).rejects.toBeInstanceOf(AlreadyMemberError);
    const events = await memberEvents(p, 1);
    expect(events).toHaveLength(1);
    expect(factsOf(events[0])).toEqual([
      ["member-user-id", invitee.id],
      ["member-name", invitee.email],
      ["role", "custom"],
      ["invited-by-user-id", p.ownerUserId],
    ]);
  });
});
