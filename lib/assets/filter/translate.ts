/** Translation of a parsed filter into a Prisma `AssetWhereInput`, driven by the per-field table. */
import type { AssetStatus, AssetType, ModerationAction, Visibility } from "@/lib/db/generated/enums";
import { equalityField, orderedField, stringField, tagsField, type FieldSpec } from "@/lib/assets/filter/field-kinds";
import { FILTERABLE_ASSET_FIELDS, isFilterableField, suggestField, type FilterableAssetField } from "@/lib/assets/filter/fields";
import { filterError, show } from "@/lib/assets/filter/lexer";
import type { Constraint, FilterNode } from "@/lib/assets/filter/parser";
import { enumValues, parseDate, parseSize, parseUuid } from "@/lib/assets/filter/values";
import { combine, type Where } from "@/lib/assets/filter/where";

export function translateNode(node: FilterNode, fields: Set<FilterableAssetField>): Where {
  if (node.kind === "constraint") return translateConstraint(node, fields);
  return combine(node.kind === "and" ? "AND" : "OR", node.children.map((child) => translateNode(child, fields)));
}

function translateConstraint(c: Constraint, fields: Set<FilterableAssetField>): Where {
  const name = c.selector.text;
  if (!isFilterableField(name)) {
    const suggestion = suggestField(name);
    throw filterError(
      c.selector.pos,
      `unknown field ${show(name)}${suggestion ? ` (did you mean ${show(suggestion)}?)` : ""}; filterable fields: ${FILTERABLE_ASSET_FIELDS.join(", ")}`,
    );
  }
  fields.add(name);
  const spec = FIELD_SPECS[name];
  if (!spec.operators.includes(c.operator.op)) {
    throw filterError(
      c.operator.pos,
      `operator ${show(c.operator.raw)} is not supported for field ${show(name)}; supported operators: ${spec.operators.join(", ")}`,
    );
  }
  const takesList = c.operator.op === "=in=" || c.operator.op === "=out=";
  if (c.listPos !== null && !takesList) {
    throw filterError(c.listPos, `operator ${show(c.operator.raw)} takes a single value; use =in= or =out= for a list`);
  }
  return spec.translate(c, name);
}

// --- Field table -------------------------------------------------------------------------------------

// API value → Prisma enum member; `satisfies Record<Enum, Enum>` keeps the maps exhaustive and exact.
const STATUS_VALUES = { uploading: "uploading", pending: "pending", approved: "approved", rejected: "rejected", error: "error" } as const satisfies Record<AssetStatus, AssetStatus>;
const TYPE_VALUES = {
  image: "image",
  video: "video",
  audio: "audio",
  "plaintext-document": "plaintext_document",
  "multimedia-document": "multimedia_document",
  website: "website",
  file: "file",
} as const satisfies Record<string, AssetType>;
const VISIBILITY_VALUES = { public: "public", private: "private" } as const satisfies Record<Visibility, Visibility>;
const MODERATION_ACTION_VALUES = { ignore: "ignore", alert: "alert", hide: "hide", purge: "purge" } as const satisfies Record<ModerationAction, ModerationAction>;
const BOOLEAN_VALUES = { true: true, false: false } as const;

// Compile-time check that every Prisma AssetType is reachable from an API value.
type MissingAssetTypes = Exclude<AssetType, (typeof TYPE_VALUES)[keyof typeof TYPE_VALUES]>;
const _allAssetTypesMapped: [MissingAssetTypes] extends [never] ? true : never = true;
void _allAssetTypesMapped;

const FIELD_SPECS: Record<FilterableAssetField, FieldSpec> = {
  status: equalityField({ column: "status", nullable: false, parse: enumValues(STATUS_VALUES) }),
  type: equalityField({ column: "type", nullable: false, parse: enumValues(TYPE_VALUES) }),
  visibility: equalityField({ column: "visibility", nullable: true, parse: enumValues(VISIBILITY_VALUES) }),
  moderationAction: equalityField({ column: "moderationAction", nullable: true, parse: enumValues(MODERATION_ACTION_VALUES) }),
  flagged: equalityField({ column: "flagged", nullable: true, parse: enumValues(BOOLEAN_VALUES) }),
  folderId: equalityField({ column: "folderId", nullable: true, parse: parseUuid }),
  parentId: equalityField({ column: "parentId", nullable: true, parse: parseUuid }),
  name: stringField({ column: "name", nullable: false, caseInsensitive: true }),
  externalId: stringField({ column: "externalId", nullable: true, caseInsensitive: false }),
  fileFormat: stringField({ column: "fileFormat", nullable: true, caseInsensitive: false }),
  fileExtension: stringField({ column: "fileExtension", nullable: true, caseInsensitive: false }),
  createdAt: orderedField({ column: "createdAt", nullable: false, parse: parseDate }),
  updatedAt: orderedField({ column: "updatedAt", nullable: false, parse: parseDate }),
  sizeInBytes: orderedField({ column: "sizeInBytes", nullable: true, parse: parseSize }),
  tags: tagsField,
};
