/**
 * The weighted term lexicon: thousands of words and fixed phrases per category, kept as data in
 * lexicon/*.json and matched token by token (a hash lookup per token, so its size costs little).
 * Each group of terms acts like one rule: the same hits, negation/quotation/context damping and
 * notes as the regex rules in rules-*.ts. Entries are written in plain English and normalised here
 * with normalizeText (so "you're" and "youre" are one entry); `~v` / `~n` mark words to inflect
 * (morphology.ts), `*` stands for any one word and a leading `^` anchors at the start of a sentence.
 */
import { hit, type RuleHit } from "./lexicon";
import cueTerms from "./lexicon/cues.json";
import criminalTerms from "./lexicon/criminal-activity.json";
import harassmentTerms from "./lexicon/harassment.json";
import hateTerms from "./lexicon/hate.json";
import selfHarmTerms from "./lexicon/self-harm.json";
import sexualTerms from "./lexicon/sexual.json";
import violenceTerms from "./lexicon/violence.json";
import { expandEntry } from "./morphology";
import { normalizeText } from "./normalize";

export interface TermGroupSpec {
  id: string;
  /** "category/qualifier:weight" shorthand, as for rules. */
  hits: string[];
  terms: string[];
  /** true: a negation inside a matched phrase damps it too (default: only a negation before it). */
  negatable?: boolean;
  /** false: context qualifiers (fiction, news …) never damp these terms. */
  contextual?: boolean;
  /** true: words that only say who or what (a target, a group): a negation before them negates nothing. */
  neutral?: boolean;
}

export interface TermGroup {
  id: string;
  hits: RuleHit[];
  negatable?: boolean;
  contextual?: boolean;
  neutral?: boolean;
  /** Number of distinct phrases after expansion. */
  size: number;
}

interface TermEntry {
  tokens: string[];
  group: number;
}

export interface TermIndex {
  groups: TermGroup[];
  byFirstToken: Map<string, TermEntry[]>;
}

export interface TermMatch {
  group: TermGroup;
  /** Offsets of the match in the scanned text. */
  index: number;
  end: number;
  match: string;
  /** Token positions (first, last) and the sentence the match is in, for co-occurrence rules. */
  firstToken: number;
  lastToken: number;
  sentence: number;
}

export const TERM_GROUP_SPECS: readonly TermGroupSpec[] = [
  sexualTerms,
  violenceTerms,
  selfHarmTerms,
  harassmentTerms,
  hateTerms,
  criminalTerms,
  cueTerms,
].flatMap((file) => file.groups as TermGroupSpec[]);

const collapse = (token: string) => token.replace(/([a-z])\1+/g, "$1");

/**
 * A written token matches a lexicon token when equal, or when it only repeats letters for emphasis
 * ("kiill" for "kill", "sooo" for "so"); never when it has fewer letters ("of" is not "off").
 */
function sameWord(want: string, got: string): boolean {
  return want === got || (got.length > want.length && collapse(got) === collapse(want));
}
const WORDLIKE = /[a-z0-9]/;
const SENTENCE_END = /^[.!?]+$/;

export function compileTermGroups(specs: readonly TermGroupSpec[]): TermIndex {
  const groups: TermGroup[] = [];
  const byFirstToken = new Map<string, TermEntry[]>();
  specs.forEach((spec, groupIndex) => {
    const seen = new Set<string>();
    for (const entry of spec.terms) {
      for (const phrase of expandEntry(entry)) {
        // "*" survives normalisation as a separator, so protect it with a placeholder word.
        const normalized = normalizeText(phrase.replace(/\*/g, " qqwildcardqq ").replace(/\^/g, " qqstartqq "))
          .replace(/qqwildcardqq/g, "*")
          .replace(/qqstartqq/g, "^");
        const tokens = normalized.split(" ").filter((t) => t !== "");
        const key = tokens.join(" ");
        if (tokens.length === 0 || tokens[0] === "*" || (tokens[0] === "^" && tokens.length === 1) || seen.has(key)) continue;
        seen.add(key);
        const first = collapse((tokens[0] === "^" ? tokens[1] : tokens[0]) as string);
        const list = byFirstToken.get(first) ?? [];
        list.push({ tokens, group: groupIndex });
        byFirstToken.set(first, list);
      }
    }
    // A negation inside a fixed phrase is part of its meaning ("never wake up"); only a negation
    // before the phrase damps it, unless the group says otherwise.
    groups.push({
      id: spec.id,
      hits: spec.hits.map(hit),
      negatable: spec.negatable ?? false,
      contextual: spec.contextual,
      neutral: spec.neutral,
      size: seen.size,
    });
  });
  return { groups, byFirstToken };
}

/** Every occurrence of every term in `scan` (normalised text, possibly with blanked idioms). */
export function matchTerms(scan: string, index: TermIndex): TermMatch[] {
  const tokens: { token: string; at: number; end: number; sentence: number }[] = [];
  let sentence = 0;
  for (const m of scan.matchAll(/\S+/g)) {
    tokens.push({ token: m[0], at: m.index, end: m.index + m[0].length, sentence });
    if (SENTENCE_END.test(m[0])) sentence++;
  }
  const matches: TermMatch[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const candidates = index.byFirstToken.get(collapse((tokens[i] as { token: string }).token));
    if (!candidates) continue;
    for (const entry of candidates) {
      // "^" anchors an entry at the start of a sentence ("^ gonna": a chat threat without "i").
      const anchored = entry.tokens[0] === "^";
      if (anchored && i > 0 && !SENTENCE_END.test((tokens[i - 1] as { token: string }).token)) continue;
      const words = anchored ? entry.tokens.slice(1) : entry.tokens;
      if (i + words.length > tokens.length) continue;
      let ok = sameWord(words[0] as string, (tokens[i] as { token: string }).token);
      for (let j = 1; j < words.length && ok; j++) {
        const want = words[j] as string;
        const got = (tokens[i + j] as { token: string }).token;
        ok = want === "*" ? WORDLIKE.test(got) : sameWord(want, got);
      }
      if (!ok) continue;
      const first = tokens[i] as { at: number; sentence: number };
      const lastToken = i + words.length - 1;
      const end = (tokens[lastToken] as { end: number }).end;
      matches.push({
        group: index.groups[entry.group] as TermGroup,
        index: first.at,
        end,
        match: scan.slice(first.at, end),
        firstToken: i,
        lastToken,
        sentence: first.sentence,
      });
    }
  }
  return matches;
}

export const TERM_INDEX: TermIndex = compileTermGroups(TERM_GROUP_SPECS);
