/**
 * Local, transparent text classifier: normalisation, then three kinds of evidence — regex phrase
 * rules (rules-*.ts), the weighted term lexicon (terms.ts, lexicon/*.json) and co-occurrence rules
 * (combos.ts) — damped by negation, quotation, joking markers and document contexts (news, fiction,
 * history, support), combined per category with overlapping spans counted once.
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
import { matchCombos, type ComboRule } from "./combos";
import { TERM_INDEX, matchTerms, type TermGroup, type TermMatch } from "./terms";

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
const JOKING = /\b(?:lol|lool|lmao|lmfao|rofl|haha\w*|hehe\w*|jk|j k|just kidding|kidding)\b/;
const JOKING_FACTOR = 0.75;
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

/** A regex rule, a lexicon term group or a co-occurrence rule: where evidence comes from. */
type EvidenceSource = Pick<RuleSpec, "id" | "hits" | "contextual">;

/** Where a match is in the scanned text, and how much negation/quotation damp it. */
interface Located {
  factor: number;
  start: number;
  end: number;
}

interface Evidence {
  category: TextCategory;
  qualifier?: string;
  weight: number;
  start: number;
  end: number;
}

/**
 * The same words matched by several sources (a phrase rule, a lexicon term, a combination) are one
 * piece of evidence: keep the strongest of overlapping spans, so nothing is counted twice.
 */
function strongestDisjoint(items: Evidence[]): number[] {
  const kept: Evidence[] = [];
  for (const e of [...items].sort((a, b) => b.weight - a.weight)) {
    if (!kept.some((k) => e.start < k.end && k.start < e.end)) kept.push(e);
  }
  return kept.map((k) => k.weight);
}

/** Local damping of one match: negation and quotation. */
function localFactor(text: string, rule: Pick<RuleSpec, "negatable">, index: number, match: string, flags: Set<string>): number {
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

  // 3. Evidence: regex rules, lexicon terms and co-occurrence rules. Distinct matched strings of one
  //    source each add evidence (best local factor per string, top few only), damped by contexts.
  const rulesFired: FiredRule[] = [];
  const evidence: Evidence[] = [];
  const addEvidence = (source: EvidenceSource, matches: Map<string, Located>) => {
    const top = [...matches].sort((x, y) => y[1].factor - x[1].factor || (x[0] < y[0] ? -1 : 1)).slice(0, MAX_DISTINCT_PER_RULE);
    for (const h of source.hits) {
      const ctx = source.contextual === false ? 1 : contextFactor(h.category);
      for (const [match, at] of top) {
        const weight = round(h.weight * Math.max(MIN_FACTOR, at.factor * ctx));
        rulesFired.push({ id: source.id, category: h.category, ...(h.qualifier ? { qualifier: h.qualifier } : {}), match, weight });
        evidence.push({ category: h.category, qualifier: h.qualifier, weight, start: at.start, end: at.end });
      }
    }
  };
  const note = (matches: Map<string, Located>, key: string, located: Located) => {
    const known = matches.get(key);
    if (!known || known.factor < located.factor) matches.set(key, located);
  };
  for (const rule of COMPILED_RULES) {
    rule.regex.lastIndex = 0;
    const matches = new Map<string, Located>();
    let m: RegExpExecArray | null;
    let n = 0;
    while ((m = rule.regex.exec(scan)) !== null && n < MAX_MATCHES_PER_RULE) {
      n++;
      const factor = localFactor(scan, rule, m.index, m[0], flags);
      note(matches, m[0].trim(), { factor, start: m.index, end: m.index + m[0].length });
    }
    if (matches.size > 0) addEvidence(rule, matches);
  }
  const termMatches = matchTerms(scan, TERM_INDEX);
  const termFactor = new Map<TermMatch, number>();
  const byGroup = new Map<TermGroup, Map<string, Located>>();
  for (const t of termMatches) {
    const factor = localFactor(scan, t.group, t.index, t.match, flags);
    termFactor.set(t, factor);
    if (t.group.hits.length === 0) continue;
    const matches = byGroup.get(t.group) ?? new Map<string, Located>();
    byGroup.set(t.group, matches);
    note(matches, t.match, { factor, start: t.index, end: t.end });
  }
  for (const [group, matches] of byGroup) addEvidence(group, matches);
  const byCombo = new Map<ComboRule, Map<string, Located>>();
  // A negated or quoted part damps the whole combination (not a mere target: "dont want any X here").
  const partFactor = (p: TermMatch) => (p.group.neutral ? 1 : (termFactor.get(p) ?? 1));
  for (const c of matchCombos(termMatches, scan, partFactor)) {
    const matches = byCombo.get(c.rule) ?? new Map<string, Located>();
    byCombo.set(c.rule, matches);
    const factor = Math.min(...c.parts.map(partFactor));
    note(matches, c.match, { factor, start: c.index, end: c.end });
  }
  // Joking markers ("lol", "jk") make a generic speaker + harm + target combination likely hyperbole
  // ("gonna kill my sister lol"); fixed threat phrases are not damped.
  const joking = JOKING.test(normalized);
  if (joking) flags.add("joking");
  for (const [rule, matches] of byCombo) {
    if (!joking) addEvidence(rule, matches);
    else addEvidence({ ...rule, hits: rule.hits.map((h) => (h.category === "violence" ? { ...h, weight: h.weight * JOKING_FACTOR } : h)) }, matches);
  }

  // 4. Combine per category and per qualifier; overlapping spans count once (the strongest).
  const result = emptyResult();
  for (const c of TEXT_CATEGORIES) {
    const own = evidence.filter((e) => e.category === c);
    if (own.length === 0) continue;
    const qualifiers: Record<string, number> = {};
    for (const q of new Set(own.map((e) => e.qualifier).filter((q): q is string => q !== undefined))) {
      qualifiers[q] = round(saturate(strongestDisjoint(own.filter((e) => e.qualifier === q))));
    }
    // A category with evidence also reports the contexts (news, fiction, …) that damped it.
    for (const [q, s] of contextStrength) qualifiers[q] = round(s);
    result.categories[c] = { score: round(saturate(strongestDisjoint(own))), qualifiers };
  }
  for (const q of contextStrength.keys()) flags.add(q);
  result.notes.rulesFired = rulesFired;
  result.notes.contexts = [...flags].sort();
  return result;
}
