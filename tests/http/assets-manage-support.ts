import { stat } from "node:fs/promises";
import path from "node:path";
import { inject } from "vitest";
import { db } from "@/lib/db/client";
import { expectOk, pngBytes, type TestProject } from "./support";

/**
 * Helpers of the asset management tests (assets-manage.test.ts, assets-list.test.ts).
 * Text and PNG uploads here use queue=false (the default), so they come back decided (`approved`)
 * and do not change afterwards; tests that look at stored bytes upload with
 * keepContentAfterProcessing (KEEP), since processing otherwise removes the content.
 */

export const KEEP = { processingOptions: { keepContentAfterProcessing: true } };

export const NO_SUCH_ID = "00000000-0000-4000-8000-000000000000";

/** Whether bytes are stored under a storageId (filesystem storage of the test server). */
export async function storedFileExists(storageId: string): Promise<boolean> {
  const file = path.join(inject("dataDir"), "storage", ...storageId.split("/"));
  return stat(file).then(
    () => true,
    () => false,
  );
}

export async function createText(p: TestProject, name: string, extra: Record<string, unknown> = {}, text = `content of ${name}`) {
  return expectOk(await p.client.post(`/projects/${p.projectId}/assets`, { name, content: { plainText: text, type: "text/plain" }, ...extra }));
}

export async function createPng(p: TestProject, name: string, extra: Record<string, unknown> = {}) {
  const png = await pngBytes(4, 4);
  return expectOk(await p.client.post(`/projects/${p.projectId}/assets`, { name, content: { base64: png.toString("base64"), type: "image/png" }, ...extra }));
}

/** An extracted child asset; the pipeline makes none for the text and PNG parents used here, so it goes in directly. */
export async function insertChild(parent: Record<string, any>, name: string, withContent = false) {
  return db().asset.create({
    data: {
      projectId: parent.projectId,
      parentId: parent.id,
      name,
      type: "plaintext_document",
      status: "pending",
      fileFormat: "text/plain",
      storageId: withContent ? `projects/${parent.projectId}/assets/${parent.id}/derived-${name}` : null,
    },
  });
}
