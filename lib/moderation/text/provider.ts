import type { Category, QualifierKey } from "../report";
import { QUALIFIER_KEYS } from "../report";
import { ProviderError, type ClassifierProvider, type MediaKind, type ProviderInput, type ProviderResult } from "../providers/types";
import { classifyText, TEXT_CATEGORIES, TEXT_LEXICON_VERSION } from "./classify";

/** The rule/lexicon text classifier behind the provider interface; its rules that fired go to the notes. */
export function createRulesTextProvider(): ClassifierProvider {
  const qualifierKeys = new Set<string>(QUALIFIER_KEYS);
  return {
    id: "sieve-text-rules",
    version: TEXT_LEXICON_VERSION,
    supports: (kind: MediaKind) => (kind === "text" ? TEXT_CATEGORIES : []),
    async classify(input: ProviderInput): Promise<ProviderResult> {
      if (input.kind !== "text") throw new ProviderError("sieve-text-rules", "malformed", `cannot classify ${input.kind} input`);
      const result = classifyText(input.text);
      const categories: ProviderResult["categories"] = {};
      for (const category of TEXT_CATEGORIES as readonly Category[]) {
        const { score, qualifiers } = result.categories[category];
        const known = Object.entries(qualifiers).filter(([key]) => qualifierKeys.has(key)) as [QualifierKey, number][];
        categories[category] = { score, qualifiers: Object.fromEntries(known) };
      }
      return {
        categories,
        details: {
          version: result.notes.version,
          contexts: result.notes.contexts,
          rulesFired: result.notes.rulesFired.map((r) => ({ id: r.id, category: r.category, qualifier: r.qualifier ?? null, match: r.match, weight: r.weight })),
        },
      };
    },
  };
}
