import { describe, expect, it } from "vitest";
import { PERMISSIONS } from "@/lib/auth/permissions";
import { rolePermissions } from "@/lib/auth/roles";

describe("role permissions", () => {
  it("gives admins everything, members daily work with review, viewers reading only", () => {
    expect(rolePermissions("admin")).toEqual([...PERMISSIONS]);
    expect(rolePermissions("member")).toContain("assets:review");
    expect(rolePermissions("member")).not.toContain("connectors:write");
    expect(rolePermissions("viewer")).toEqual(["assets:read", "assets:download", "events:read"]);
  });

  it("gives a custom role exactly its known permissions, once each", () => {
    expect(rolePermissions("custom", ["assets:read", "assets:review", "assets:read", "root:everything"])).toEqual(["assets:read", "assets:review"]);
    expect(rolePermissions("custom")).toEqual([]);
    // The custom list is ignored for the fixed roles.
    expect(rolePermissions("viewer", ["assets:review"])).not.toContain("assets:review");
  });
});
