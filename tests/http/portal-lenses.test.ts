import { beforeAll, describe, expect, it } from "vitest";
import { portal, portalUser, type PortalUser } from "./portal-support";
import { expectError, expectOk, newProject, type TestProject } from "./support";

/** The lenses page's JSON routes: list (own + built-in), Ensure Lens with its version rule, roles. */

let p: TestProject;
let other: TestProject;
let admin: PortalUser;
let viewer: PortalUser;
let outsider: PortalUser;

beforeAll(async () => {
  [p, other] = await Promise.all([newProject(), newProject()]);
  [admin, viewer, outsider] = await Promise.all([portalUser(p, "admin"), portalUser(p, "viewer"), portalUser(other, "admin")]);
});

const lens = (version: number, extra: Record<string, unknown> = {}) => ({
  identifier: "square",
  name: "Square",
  type: "image",
  active: true,
  transforms: [{ type: "imageTransform", options: { width: 64, height: 64, fit: "cover", format: "webp" } }],
  version,
  ...extra,
});
const put = (cookie: string, body: unknown, identifier = "square") => portal(cookie, "PUT", `/projects/${p.projectId}/lenses/${identifier}`, { json: body });

describe("portal lenses", () => {
  it("lists the built-in lenses read-only, creates a lens, updates it only with a greater version", async () => {
    const before = expectOk(await portal(viewer.cookie, "GET", `/projects/${p.projectId}/lenses`));
    expect(before.lenses.filter((l: { builtIn: boolean }) => l.builtIn).map((l: { identifier: string; projectId: null }) => [l.identifier, l.projectId])).toEqual([
      ["thumbnail", null],
      ["web-optimised", null],
      ["preview", null],
    ]);
    expect(before.previewAssets).toEqual([]);
    expect(expectOk(await put(admin.cookie, lens(1))).lens).toMatchObject({ identifier: "square", version: 1, projectId: p.projectId });
    expect(expectOk(await put(admin.cookie, lens(2, { active: false }))).lens).toMatchObject({ version: 2, active: false });
    const conflict = expectError(await put(admin.cookie, lens(2)), 409, "lens/version-conflict");
    expect(conflict.message).toContain("is at version 2");
    const after = expectOk(await portal(admin.cookie, "GET", `/projects/${p.projectId}/lenses`));
    expect(after.lenses[0]).toMatchObject({ identifier: "square", version: 2, active: false, builtIn: false });
  });

  it("refuses bad definitions, a path that differs from the body, viewers, other projects and cross-site writes", async () => {
    expectError(await put(admin.cookie, lens(1, { identifier: "bad", transforms: [{ type: "blur", options: {} }] }), "bad"), 400, "request/validation-failed");
    expectError(await put(admin.cookie, lens(1), "other"), 400, "request/validation-failed");
    expectError(await put(viewer.cookie, lens(9)), 403, "auth/insufficient-permissions");
    expectError(await put(outsider.cookie, lens(9)), 404, "project/not-found");
    expectError(await portal(admin.cookie, "PUT", `/projects/${p.projectId}/lenses/square`, { json: lens(9), headers: { Origin: "https://evil.example" } }), 403, "auth/cross-site-request");
    expectError(await portal(null, "GET", `/projects/${p.projectId}/lenses`), 401, "auth/not-signed-in");
  });
});
