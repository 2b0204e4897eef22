import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { OBJECT_LABELS } from "@/lib/assets/search/query";
import { buildVocabulary, LABEL_SENSES } from "@/scripts/build-search-vocabulary";

describe("the search vocabulary", () => {
  it("is what the generator makes from WordNet (npm run search:vocabulary after changing it)", () => {
    const committed = JSON.parse(readFileSync(path.join(process.cwd(), "lib/assets/search/vocabulary.json"), "utf8"));
    expect(committed).toEqual(buildVocabulary());
  }, 60_000);

  it("pins every detector label to a WordNet sense", () => {
    expect(Object.keys(LABEL_SENSES).sort()).toEqual([...OBJECT_LABELS].sort());
  });
});
