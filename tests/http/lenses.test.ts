import { describe, expect, it } from "vitest";
import { expectError, newKey, newProject } from "./support";

const lens = (identifier: string, version: number, extra: Record<string, unknown> = {}) => ({
  identifier,
  name: `Lens ${identifier}`,
  type: "image",
  active: true,
  transforms: [{ type: "imageTransform", options: { fit: "cover", width: 320, format: "webp" } }],
  version,
  ...extra,
});

describe("lenses", () => {
  it("creates a lens, updates it only with a greater version, and returns {lens}", async () => {
    const { projectId, client } = await newProject();
    const created = await client.request("PUT", "/lenses/thumb", { json: lens("thumb", 1) });
    expect(created.status).toBe(200);
    expect(created.body.lens).toMatchObject({
      projectId,
      identifier: "thumb",
      name: "Lens thumb",
      description: null,
      type: "image",
      active: true,
      version: 1,
      transforms: [{ type: "imageTransform", options: { fit: "cover", width: 320, format: "webp" } }],
    });
    expect(Number.isInteger(created.body.lens.createdAt)).toBe(true);

    expectError(await client.request("PUT", "/lenses/thumb", { json: lens("thumb", 1, { name: "same version" }) }), 409, "lens/version-conflict");
    const updated = await client.request("PUT", "/lenses/thumb", { json: lens("thumb", 2, { active: false, transforms: null }) });
    expect(updated.status).toBe(200);
    expect(updated.body.lens).toMatchObject({ id: created.body.lens.id, version: 2, active: false, transforms: null });
    expectError(await client.request("PUT", "/lenses/thumb", { json: lens("thumb", 1) }), 409, "lens/version-conflict");
  });

  it("validates identifiers, bodies and imageTransform options", async () => {
    const { client } = await newProject();
    expectError(await client.request("PUT", "/lenses/Thumb", { json: lens("Thumb", 1) }), 400, "request/validation-failed");
    expectError(await client.request("PUT", `/lenses/${"a".repeat(51)}`, { json: lens("a".repeat(51), 1) }), 400, "request/validation-failed");
    expectError(await client.request("PUT", "/lenses/one", { json: lens("two", 1) }), 400, "request/validation-failed");
    expectError(await client.request("PUT", "/lenses/x", { json: { ...lens("x", 1), extra: true } }), 400, "request/validation-failed");
    expectError(await client.request("PUT", "/lenses/x", { json: lens("x", 1, { type: "pdf" }) }), 400, "request/validation-failed");
    const badOptions = lens("x", 1, { transforms: [{ type: "imageTransform", options: { width: -1, colour: "red" } }] });
    const refused = expectError(await client.request("PUT", "/lenses/x", { json: badOptions }), 400, "request/validation-failed");
    expect(refused.message).toMatch(/width/);
  });

  it("refuses at definition time a transform the CDN cannot apply, naming what is supported", async () => {
    const { projectId, client } = await newProject();
    const otherType = lens("x", 1, { transforms: [{ type: "resize", options: { width: 100 } }] });
    const unsupported = expectError(await client.request("PUT", "/lenses/x", { json: otherType }), 400, "request/validation-failed");
    expect(unsupported.message).toContain("body.transforms.0.type");
    expect(unsupported.message).toContain("supported transform types: imageTransform");

    const audio = lens("x", 1, { type: "audio" });
    const noImage = expectError(await client.request("PUT", "/lenses/x", { json: audio }), 400, "request/validation-failed");
    expect(noImage.message).toContain("audio assets have no image to transform");
    // Ensure Lenses refuses the same, and stores nothing of the batch.
    const batch = { lenses: [lens("fine", 1), lens("x", 1, { type: "audio" })] };
    const refused = expectError(await client.request("PUT", `/projects/${projectId}/lenses`, { json: batch }), 400, "request/validation-failed");
    expect(refused.message).toContain("body.lenses.1.transforms.0.type");
    expect((await client.request("PUT", "/lenses/fine", { json: lens("fine", 1) })).status).toBe(200); // version 1 again: was not stored

    // Without transforms an audio lens is fine, and other lens types take imageTransform (posters, previews).
    expect((await client.request("PUT", "/lenses/sound", { json: lens("sound", 1, { type: "audio", transforms: null }) })).status).toBe(200);
    expect((await client.request("PUT", "/lenses/poster", { json: lens("poster", 1, { type: "video" }) })).status).toBe(200);
  });

  it("ensures several lenses at once, all or nothing", async () => {
    const { projectId, client } = await newProject();
    const first = await client.request("PUT", `/projects/${projectId}/lenses`, { json: { lenses: [lens("a", 1), lens("b", 1)] } });
    expect(first.status).toBe(200);
    expect(first.body.lenses.map((l: any) => [l.identifier, l.version])).toEqual([["a", 1], ["b", 1]]);

    // "b" conflicts, so "a" must not move to version 2 either.
    expectError(await client.request("PUT", `/projects/${projectId}/lenses`, { json: { lenses: [lens("a", 2), lens("b", 1)] } }), 409, "lens/version-conflict");
    const again = await client.request("PUT", "/lenses/a", { json: lens("a", 2) });
    expect(again.status).toBe(200);

    expectError(await client.request("PUT", `/projects/${projectId}/lenses`, { json: { lenses: [lens("c", 1), lens("c", 2)] } }), 400, "request/validation-failed");
    expectError(await client.request("PUT", `/projects/${projectId}/lenses`, { json: { lenses: [] } }), 400, "request/validation-failed");
  });

  it("needs lenses:write and the key's own project; lenses are per project", async () => {
    const { projectId } = await newProject();
    const other = await newProject();
    const reader = await newKey(projectId, ["assets:read"]);
    expectError(await reader.client.request("PUT", "/lenses/x", { json: lens("x", 1) }), 403, "auth/insufficient-permissions");
    expectError(await other.client.request("PUT", `/projects/${projectId}/lenses`, { json: { lenses: [lens("x", 1)] } }), 403, "auth/project-mismatch");
    // The same identifier in another project is another lens.
    expect((await other.client.request("PUT", "/lenses/shared", { json: lens("shared", 5) })).status).toBe(200);
    const writer = await newKey(projectId, ["lenses:write"]);
    expect((await writer.client.request("PUT", "/lenses/shared", { json: lens("shared", 1) })).body.lens.version).toBe(1);
  });
});
