/** The names of the filterable asset fields, and the lookup of a selector among them. */

/** Selector names accepted in filters (the API's camelCase asset field names). */
export const FILTERABLE_ASSET_FIELDS = [
  "status",
  "type",
  "visibility",
  "moderationAction",
  "folderId",
  "parentId",
  "externalId",
  "name",
  "fileFormat",
  "fileExtension",
  "createdAt",
  "updatedAt",
  "sizeInBytes",
  "tags",
  "flagged",
] as const;

export type FilterableAssetField = (typeof FILTERABLE_ASSET_FIELDS)[number];

/** Fields compared as text; the only ones whose values may contain `*` wildcards. */
export const STRING_FIELDS = ["name", "externalId", "fileFormat", "fileExtension"] as const satisfies readonly FilterableAssetField[];

export function isFilterableField(name: string): name is FilterableAssetField {
  return (FILTERABLE_ASSET_FIELDS as readonly string[]).includes(name);
}

/** Catches case and snake_case slips such as `CreatedAt` or `created_at`. */
export function suggestField(name: string): FilterableAssetField | undefined {
  const normalized = name.replace(/[_-]/g, "").toLowerCase();
  return FILTERABLE_ASSET_FIELDS.find((field) => field.toLowerCase() === normalized);
}
