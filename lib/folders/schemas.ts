import { z } from "zod";
import { NOT_BLANK, text, uuid } from "@/lib/core/schemas";

// Patterns rather than refinements, so the OpenAPI document states them too.
export const folderName = text()
  .min(1)
  .max(100)
  .regex(/^[^/\\]*$/, "must not contain slashes")
  .regex(NOT_BLANK, "must not be blank");

export const createFolderBody = z.strictObject({ name: folderName, parentId: uuid.nullable().optional() });
export const renameFolderBody = z.strictObject({ name: folderName.optional() });
export const moveFolderBody = z.strictObject({ parentId: uuid.nullable() });

/** The Folder object as responses carry it (serializeFolder returns `ApiFolder`). */
export const folderSchema = z
  .object({
    id: z.string(),
    projectId: z.string(),
    parentId: z.string().nullable().describe("Null at the project root"),
    name: z.string(),
    createdAt: z.number().int(),
    updatedAt: z.number().int(),
  })
  .meta({ id: "Folder" });
export type ApiFolder = z.output<typeof folderSchema>;
export const folderListSchema = z.object({ folders: z.array(folderSchema) });
