import { describe, expect, it } from "vitest";
import { isMemberRole, memberJoinedEvent } from "@/lib/projects/members";

describe("project.member-joined", () => {
  it("has exactly the spec's facts in order; the name falls back to the email", () => {
    const member = { projectId: "p1", userId: "u1", role: "viewer" as const, invitedByUserId: null };
    const event = memberJoinedEvent(member, { name: "Ann Example", email: "ann@example.com" });
    expect(event).toMatchObject({ type: "project.member-joined", projectId: "p1", userId: "u1" });
    expect(event.asset).toBeUndefined();
    expect(event.facts).toEqual([
      { key: "member-user-id", value: "u1" },
      { key: "member-name", value: "Ann Example" },
      { key: "role", value: "viewer" },
      { key: "invited-by-user-id", value: null },
    ]);
    const unnamed = memberJoinedEvent({ ...member, invitedByUserId: "u0" }, { name: "  ", email: "bob@example.com" });
    expect(unnamed.facts.map((f) => f.value)).toEqual(["u1", "bob@example.com", "viewer", "u0"]);
  });

  it("knows the four roles", () => {
    expect(["admin", "member", "viewer", "custom"].every(isMemberRole)).toBe(true);
    expect(isMemberRole("owner")).toBe(false);
  });
});
