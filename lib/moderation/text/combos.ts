/**
 * Co-occurrence rules: evidence that needs two or three kinds of words in one sentence, close
 * together — who speaks, what harm, aimed at whom ("i'll" + "stab" + "you"; an identity group +
 * a dehumanising noun; "how do i" + "launder"). The word kinds are term groups of the lexicon
 * (lexicon/cues.json holds the ones that carry no weight on their own); the rules are data there too.
 * This is what catches paraphrases no fixed phrase lists.
 */
import { hit, type RuleHit } from "./lexicon";
import cues from "./lexicon/cues.json";
import { TERM_INDEX, type TermMatch } from "./terms";

export interface ComboSpec {
  id: string;
  /** Term group ids that must all match in one sentence. */
  all: string[];
  hits: string[];
  /** Largest distance in tokens from the first to the last part (default 12). */
  maxTokens?: number;
  /** true: the parts must appear in the listed order ("that" + insult, not insult + "that"). */
  ordered?: boolean;
}

export interface ComboRule {
  id: string;
  all: string[];
  hits: RuleHit[];
  maxTokens: number;
  ordered: boolean;
}

export interface ComboMatch {
  rule: ComboRule;
  parts: TermMatch[];
  index: number;
  end: number;
  match: string;
}

const DEFAULT_MAX_TOKENS = 12;

export const COMBO_RULES: readonly ComboRule[] = (cues.combos as ComboSpec[]).map((spec) => {
  const known = new Set(TERM_INDEX.groups.map((g) => g.id));
  for (const id of spec.all) if (!known.has(id)) throw new Error(`combo ${spec.id}: unknown term group ${id}`);
  return { id: spec.id, all: spec.all, hits: spec.hits.map(hit), maxTokens: spec.maxTokens ?? DEFAULT_MAX_TOKENS, ordered: spec.ordered ?? false };
});

const overlaps = (a: TermMatch, b: TermMatch) => a.firstToken <= b.lastToken && b.firstToken <= a.lastToken;

/**
 * The best set of non-overlapping parts, one per group, anchored on each match of the first group:
 * undamped parts first (a negated "want" should not hide an un-negated one), then the nearest.
 */
function bestParts(groups: TermMatch[][], rule: ComboRule, factorOf: (m: TermMatch) => number): TermMatch[] | null {
  const { maxTokens, ordered } = rule;
  let best: TermMatch[] | null = null;
  let bestSpan = Infinity;
  for (const anchor of groups[0] ?? []) {
    const parts = [anchor];
    for (const candidates of groups.slice(1)) {
      let chosen: TermMatch | null = null;
      let distance = Infinity;
      let factor = -1;
      for (const c of candidates) {
        if (parts.some((p) => overlaps(p, c))) continue;
        if (ordered && c.firstToken <= (parts.at(-1) as TermMatch).lastToken) continue;
        const d = Math.abs(c.firstToken - anchor.firstToken);
        const f = factorOf(c);
        if (d > maxTokens) continue;
        if (f > factor || (f === factor && d < distance)) {
          distance = d;
          factor = f;
          chosen = c;
        }
      }
      if (!chosen) break;
      parts.push(chosen);
    }
    if (parts.length !== groups.length) continue;
    const span = Math.max(...parts.map((p) => p.lastToken)) - Math.min(...parts.map((p) => p.firstToken));
    if (span <= maxTokens && span < bestSpan) {
      best = parts;
      bestSpan = span;
    }
  }
  return best;
}

/** Every combo rule that fires, at most once per sentence. */
export function matchCombos(matches: readonly TermMatch[], scan: string, factorOf: (m: TermMatch) => number): ComboMatch[] {
  const bySentence = new Map<number, Map<string, TermMatch[]>>();
  for (const m of matches) {
    const groups = bySentence.get(m.sentence) ?? new Map<string, TermMatch[]>();
    bySentence.set(m.sentence, groups);
    const list = groups.get(m.group.id) ?? [];
    list.push(m);
    groups.set(m.group.id, list);
  }
  const fired: ComboMatch[] = [];
  for (const groups of bySentence.values()) {
    for (const rule of COMBO_RULES) {
      const lists = rule.all.map((id) => groups.get(id) ?? []);
      if (lists.some((l) => l.length === 0)) continue;
      const parts = bestParts(lists, rule, factorOf);
      if (!parts) continue;
      const index = Math.min(...parts.map((p) => p.index));
      const end = Math.max(...parts.map((p) => p.end));
      fired.push({ rule, parts, index, end, match: scan.slice(index, end) });
    }
  }
  return fired;
}
