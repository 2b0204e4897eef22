import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { expectError, expectOk, newProject, pngBytes, sha256, type TestProject } from "./support";
import { create, rawUpload } from "./assets-create-support";

/** Idempotency-Key on Create Asset and on the raw-bytes upload. */

let p: TestProject;
let png: Buffer;

beforeAll(async () => {
  p = await newProject();
  png = await pngBytes(8, 6);
});

describe("idempotency", () => {
  it("Create Asset: a retry replays the first response; another body with the key → 422", async () => {
    const body = { name: "idem", content: { plainText: "once", type: "text/plain" } };
    const first = await create(p, body, { headers: { "Idempotency-Key": "create-key-1" } });
    const asset = expectOk(first);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const again = await create(p, body, { headers: { "Idempotency-Key": "create-key-1" } });
    expect(expectOk(again).id).toBe(asset.id);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.headers.get("x-request-id")).not.toBe(first.headers.get("x-request-id"));
    expect(await db().asset.count({ where: { projectId: p.projectId, name: "idem" } })).toBe(1);

    const changed = await create(p, { ...body, name: "idem-2" }, { headers: { "Idempotency-Key": "create-key-1" } });
    expectError(changed, 422, "idempotency/key-reused");
    expectError(await create(p, body, { headers: { "Idempotency-Key": "has space" } }), 400, "idempotency/invalid-key");
  });

  it("a stored error is replayed with its first traceId", async () => {
    expectOk(await create(p, { name: "e1", content: { plainText: "x", type: "text/plain" }, externalId: "idem-dup" }));
    const body = { name: "e2", content: { plainText: "y", type: "text/plain" }, externalId: "idem-dup" };
    const first = await create(p, body, { headers: { "Idempotency-Key": "err-key" } });
    const firstError = expectError(first, 409, "asset/duplicate-external-id");
    const replay = await create(p, body, { headers: { "Idempotency-Key": "err-key" } });
    expect(replay.status).toBe(409);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body).toEqual(firstError);
  });

  it("raw upload: the same bytes replay the same asset; different bytes with the key → 422", async () => {
    const headers = { "X-Service-Upload": "content", "Content-Type": "image/png", "Idempotency-Key": "raw-key-1" };
    const first = await rawUpload(p, png, { query: { name: "raw-idem" }, headers });
    const asset = expectOk(first);
    const replay = await rawUpload(p, png, { query: { name: "raw-idem" }, headers });
    expect(expectOk(replay).id).toBe(asset.id);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(await db().asset.count({ where: { projectId: p.projectId, name: "raw-idem" } })).toBe(1);

    const otherBytes = await pngBytes(9, 9);
    expectError(await rawUpload(p, otherBytes, { query: { name: "raw-idem" }, headers }), 422, "idempotency/key-reused");
    expectError(await rawUpload(p, png, { query: { name: "raw-idem-2" }, headers }), 422, "idempotency/key-reused");
  });

  it("raw upload: a retry while the first request still streams → 409 idempotency/request-in-progress", async () => {
    const key = "raw-slow-key";
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slowBody = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(png.subarray(0, 16));
        await gate;
        controller.enqueue(png.subarray(16));
        controller.close();
      },
    });
    const headers = { "X-Api-Key": p.apiKey, "X-Service-Upload": "content", "Content-Type": "image/png", "Idempotency-Key": key };
    const url = `${(await import("./support")).baseUrl}/v1/projects/${p.projectId}/assets/upload?name=slow`;
    const firstRequest = fetch(url, { method: "POST", headers, body: slowBody, duplex: "half" } as RequestInit);
    try {
      const deadline = Date.now() + 10_000;
      while (!(await db().idempotencyRecord.findFirst({ where: { key } }))) {
        if (Date.now() > deadline) throw new Error("the first request never claimed its key");
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expectError(await rawUpload(p, png, { query: { name: "slow" }, headers }), 409, "idempotency/request-in-progress");
    } finally {
      release();
    }
    const first = await firstRequest;
    expect(first.status).toBe(200);
    const asset = (await first.json()) as { id: string; checksums: { sha256: string } };
    expect(asset.checksums.sha256).toBe(sha256(png));
    const replay = await rawUpload(p, png, { query: { name: "slow" }, headers });
    expect(expectOk(replay).id).toBe(asset.id);
  });
});
