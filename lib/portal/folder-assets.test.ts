import { describe, expect, it } from "vitest";
import { compileAssetFilter } from "@/lib/assets/filter";
import { folderAssetsFilter } from "@/lib/portal/folder-assets";

const FOLDER = "3f2504e0-4f89-41d3-9a0c-0305e82c3301";

describe("folderAssetsFilter", () => {
  it("says the page's fields in the API list's RSQL", () => {
    expect(folderAssetsFilter({ folderId: "root" })).toBe("folderId==null");
    expect(folderAssetsFilter({ folderId: FOLDER, type: "image", status: "rejected", name: "  beach " })).toBe(
      `folderId==${FOLDER};type==image;status==rejected;name=="*beach*"`,
    );
  });

  it("takes the name search literally: quotes, backslashes and asterisks are characters", () => {
    const filter = folderAssetsFilter({ folderId: "root", name: 'a"b\\c*d' });
    expect(filter).toBe('folderId==null;name=="*a\\"b\\\\c\\*d*"');
    expect(() => compileAssetFilter(filter)).not.toThrow();
  });
});
