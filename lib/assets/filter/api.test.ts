import { describe, expect, it } from "vitest";
import { ApiError } from "@/lib/core/errors";
import { FILTERABLE_ASSET_FIELDS, compileAssetFilter, mentionsField, parseAssetFilter } from "@/lib/assets/filter";
import { F1 } from "@/lib/assets/filter/test-helpers";

describe("field helpers", () => {
  it("lists the filterable fields", () => {
    expect([...FILTERABLE_ASSET_FIELDS].sort()).toEqual(
      [
        "createdAt",
        "externalId",
        "fileExtension",
        "fileFormat",
        "flagged",
        "folderId",
        "moderationAction",
        "name",
        "parentId",
        "sizeInBytes",
        "status",
        "tags",
        "type",
        "updatedAt",
        "visibility",
      ].sort(),
    );
  });

  it("mentionsField finds fields anywhere in the filter", () => {
    expect(mentionsField(undefined, "parentId")).toBe(false);
    expect(mentionsField("", "parentId")).toBe(false);
    expect(mentionsField("status==approved", "parentId")).toBe(false);
    expect(mentionsField("parentId==null", "parentId")).toBe(true);
    expect(mentionsField(`status==approved,(type==image;parentId==${F1})`, "parentId")).toBe(true);
    expect(mentionsField("name=='parentId==x'", "parentId")).toBe(false);
  });

  it("mentionsField rejects invalid filters like parseAssetFilter", () => {
    expect(() => mentionsField("parentId==nope", "parentId")).toThrow(/invalid value "nope" for field "parentId"/);
    expect(() => mentionsField("parentId==", "parentId")).toThrow(ApiError);
  });

  it("compileAssetFilter returns the condition and the fields", () => {
    const compiled = compileAssetFilter("status==approved;tags==x,status==error");
    expect(compiled.where).toEqual({ OR: [{ AND: [{ status: "approved" }, { tags: { has: "x" } }] }, { status: "error" }] });
    expect([...compiled.fields].sort()).toEqual(["status", "tags"]);
  });

  it("returns fresh objects on every call", () => {
    const a = parseAssetFilter("name!=*");
    (a as { OR: unknown[] }).OR.push({ status: "approved" });
    expect(parseAssetFilter("name!=*")).toEqual({ OR: [] });
  });
});
