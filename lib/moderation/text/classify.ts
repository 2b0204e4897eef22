/**
 * Local, transparent text classifier: normalisation + versioned lexicon rules + context damping.
 * Deterministic; every score can be traced to the rules listed in `notes.rulesFired`.
 */
import {
  BENIGN_PHRASES,
  CONTEXT_FACTORS,
  CONTEXT_QUALIFIERS,
  CONTEXT_RULES,
  MIN_FACTOR,
  NEGATION,
  NEGATION_FACTOR,
  QUOTATION_FACTOR,
  TEXT_CATEGORIES,
  TEXT_LEXICON_VERSION,
  compilePattern,
  type CompiledRule,
  type ContextQualifier,
  type RuleSpec,
  type TextCategory,
} from "./lexicon";
import { normalizeText } from "./normalize";
import { HARM_RULES } from "./rules-harm";
import { OTHER_RULES } from "./rules-other";

export { TEXT_LEXICON_VERSION, TEXT_CATEGORIES, type TextCategory };

export interface TextCategoryResult {
  /** 0..1, saturating combination of the (context-damped) weights of the rules that fired. */
  score: number;
  /** Qualifier name → 0..1. Includes context qualifiers (historical, documentary, …) when present. */
  qualifiers: Record<string, number>;
}

export interface FiredRule {
  id: string;
  category: TextCategory;
  qualifier?: string;
  /** Matched span of the normalised text. */
  match: string;
  /** Effective weight after negation / quotation / context damping. */
  weight: number;
}

export interface TextClassification {
  categories: Record<TextCategory, TextCategoryResult>;
  notes: { version: string; rulesFired: FiredRule[]; contexts: string[] };
}

const ALL_RULES: readonly RuleSpec[] = [...HARM_RULES, ...OTHER_RULES];
const COMPILED_RULES: readonly CompiledRule[] = ALL_RULES.map((r) => ({ ...r, regex: compilePattern(r.pattern) }));
const COMPILED_CONTEXTS = CONTEXT_RULES.map((c) => ({ ...c, regex: compilePattern(c.pattern) }));
const COMPILED_BENIGN = BENIGN_PHRASES.map((b) => ({ ...b, regex: compilePattern(b.pattern) }));
const MAX_MATCHES_PER_RULE = 10;
const MAX_DISTINCT_PER_RULE = 3;
const NEGATION_WINDOW_TOKENS = 4;

/** All rules, for inspection and tests (ids are unique). */
export const TEXT_RULES: readonly RuleSpec[] = ALL_RULES;

function round(n: number): number {
  return Math.round(n * 10_000) / 10_000;
}

function emptyResult(contexts: string[] = []): TextClassification {
  const categories = {} as Record<TextCategory, TextCategoryResult>;
  for (const c of TEXT_CATEGORIES) categories[c] = { score: 0, qualifiers: {} };
  return { categories, notes: { version: TEXT_LEXICON_VERSION, rulesFired: [], contexts } };
}

function precedingWindow(text: string, index: number): string {
  const before = text.slice(Math.max(0, index - 80), index);
  const sentenceStart = Math.max(before.lastIndexOf("."), before.lastIndexOf("!"), before.lastIndexOf("?"));
  const tokens = before.slice(sentenceStart + 1).trim().split(" ");
  return tokens.slice(-NEGATION_WINDOW_TOKENS).join(" ");
}

function insideQuotes(text: string, index: number): boolean {
  let count = 0;
  for (let i = text.indexOf('"'); i !== -1 && i < index; i = text.indexOf('"', i + 1)) count++;
  return count % 2 === 1 && text.indexOf('"', index) !== -1;
}

/** Local damping of one match: negation and quotation. */
function localFactor(text: string, rule: RuleSpec, index: number, match: string, flags: Set<string>): number {
  let factor = 1;
  const negated = NEGATION.test(precedingWindow(text, index)) || (rule.negatable !== false && NEGATION.test(match));
  if (negated) {
    factor *= NEGATION_FACTOR;
    flags.add("negation");
  }
  if (insideQuotes(text, index)) {
    factor *= QUOTATION_FACTOR;
    flags.add("quotation");
  }
  return factor;
}

function push<K>(map: Map<K, number[]>, key: K, value: number): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

function saturate(weights: number[]): number {
  let keep = 1;
  for (const w of weights) keep *= 1 - Math.min(1, Math.max(0, w));
  return 1 - keep;
}

export function classifyText(text: string): TextClassification {
  const normalized = normalizeText(text);
  if (normalized === "") return emptyResult();
  const flags = new Set<string>();

  // 1. Blank benign idioms (same length keeps offsets stable).
  let scan = normalized;
  for (const b of COMPILED_BENIGN) {
    b.regex.lastIndex = 0;
    if (b.regex.test(scan)) {
      b.regex.lastIndex = 0;
      scan = scan.replace(b.regex, (m) => " ".repeat(m.length));
      flags.add(`benign:${b.id}`);
    }
  }

  // 2. Document-level contexts.
  const contextWeights = new Map<ContextQualifier, number[]>();
  for (const c of COMPILED_CONTEXTS) {
    c.regex.lastIndex = 0;
    if (c.regex.test(normalized)) {
      const list = contextWeights.get(c.context) ?? [];
      list.push(c.weight);
      contextWeights.set(c.context, list);
    }
  }
  const contextStrength = new Map<ContextQualifier, number>();
  for (const q of CONTEXT_QUALIFIERS) {
    const ws = contextWeights.get(q);
    if (ws) contextStrength.set(q, saturate(ws));
  }
  const contextFactor = (category: TextCategory): number => {
    let f = 1;
    for (const [q, strength] of contextStrength) f *= 1 - strength * (1 - CONTEXT_FACTORS[q][category]);
    return f;
  };

  // 3. Category rules.
  const rulesFired: FiredRule[] = [];
  const catWeights = new Map<TextCategory, number[]>();
  const qualWeights = new Map<TextCategory, Map<string, number[]>>();
  for (const rule of COMPILED_RULES) {
    rule.regex.lastIndex = 0;
    // Distinct matched strings each add evidence (best local factor per string, top few only).
    const matches = new Map<string, number>();
    let m: RegExpExecArray | null;
    let n = 0;
    while ((m = rule.regex.exec(scan)) !== null && n < MAX_MATCHES_PER_RULE) {
      n++;
      const key = m[0].trim();
      const f = localFactor(scan, rule, m.index, m[0], flags);
      matches.set(key, Math.max(f, matches.get(key) ?? 0));
    }
    if (matches.size === 0) continue;
    const top = [...matches].sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1)).slice(0, MAX_DISTINCT_PER_RULE);
    for (const h of rule.hits) {
      const ctx = rule.contextual === false ? 1 : contextFactor(h.category);
      for (const [match, local] of top) {
        const weight = round(h.weight * Math.max(MIN_FACTOR, local * ctx));
        rulesFired.push({ id: rule.id, category: h.category, ...(h.qualifier ? { qualifier: h.qualifier } : {}), match, weight });
        push(catWeights, h.category, weight);
        if (h.qualifier) {
          const qm = qualWeights.get(h.category) ?? new Map<string, number[]>();
          qualWeights.set(h.category, qm);
          push(qm, h.qualifier, weight);
        }
      }
    }
  }

  // 4. Combine.
  const result = emptyResult();
  for (const c of TEXT_CATEGORIES) {
    const ws = catWeights.get(c);
    if (!ws) continue;
    const qualifiers: Record<string, number> = {};
    for (const [q, qws] of qualWeights.get(c) ?? []) qualifiers[q] = round(saturate(qws));
    // A category with a rule hit also reports the contexts (news, fiction, …) that damped it.
    for (const [q, s] of contextStrength) qualifiers[q] = round(s);
    result.categories[c] = { score: round(saturate(ws)), qualifiers };
  }
  for (const q of contextStrength.keys()) flags.add(q);
  result.notes.rulesFired = rulesFired;
  result.notes.contexts = [...flags].sort();
  return result;
}
