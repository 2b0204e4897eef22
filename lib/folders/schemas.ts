import { z } from "zod";
import { text, uuid } from "@/lib/core/schemas";

export const folderName = text()
  .min(1)
  .max(100)
  .refine((name) => !/[/\\]/.test(name), "must not contain slashes")
  .refine((name) => name.trim().length > 0, "must not be blank");

export const createFolderBody = z.strictObject({ name: folderName, parentId: uuid.nullable().optional() });
export const renameFolderBody = z.strictObject({ name: folderName.optional() });
export const moveFolderBody = z.strictObject({ parentId: uuid.nullable() });

export const folderSchema = z.object({
  id: z.string(),
  projectId: z.string(),
  parentId: z.string().nullable(),
  name: z.string(),
  createdAt: z.number().int(),
  updatedAt: z.number().int(),
});
export const folderListSchema = z.object({ folders: z.array(folderSchema) });
