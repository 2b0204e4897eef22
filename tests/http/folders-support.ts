import { expect } from "vitest";
import type { ApiClient } from "./support";

/** Helpers of the folder tests (folders*.test.ts): creating and listing folders, checking their shape. */

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export interface Folder {
  id: string;
  projectId: string;
  parentId: string | null;
  name: string;
  createdAt: number;
  updatedAt: number;
}

/** Checks the exact Folder shape and returns it typed. */
export function expectFolder(value: unknown, expected: { projectId: string; parentId: string | null; name: string }): Folder {
  const folder = value as Folder;
  expect(Object.keys(folder).sort()).toEqual(["createdAt", "id", "name", "parentId", "projectId", "updatedAt"]);
  expect(folder.id).toMatch(UUID_RE);
  expect(folder).toMatchObject(expected);
  expect(Number.isInteger(folder.createdAt)).toBe(true);
  expect(Number.isInteger(folder.updatedAt)).toBe(true);
  expect(Math.abs(folder.createdAt - Date.now())).toBeLessThan(60_000);
  expect(folder.updatedAt).toBeGreaterThanOrEqual(folder.createdAt);
  return folder;
}

export async function create(client: ApiClient, projectId: string, name: string, parentId?: string | null): Promise<Folder> {
  const res = await client.post(`/projects/${projectId}/folders`, parentId === undefined ? { name } : { name, parentId });
  if (res.status !== 200) throw new Error(`creating folder "${name}" failed: ${res.status} ${res.text}`);
  return expectFolder(res.body, { projectId, parentId: parentId ?? null, name });
}

export async function list(client: ApiClient, projectId: string): Promise<Folder[]> {
  const res = await client.get(`/projects/${projectId}/folders`);
  expect(res.status).toBe(200);
  expect(Object.keys(res.body)).toEqual(["folders"]);
  return res.body.folders;
}
