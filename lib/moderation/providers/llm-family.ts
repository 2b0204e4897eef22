import type { z } from "zod";
import type { Category } from "../report";
import type { ChatAnswer, ChatRequest, TokenLogprob } from "@/lib/net/chat-completions";
import type { CategoryScore } from "./types";

/**
 * What the model families behind the `llm` provider share: the adapter each family implements
 * (llm-llama-guard.ts, llm-shieldgemma.ts, llm-gpt-oss-safeguard.ts), how a family is recognised
 * from the model name, and how a text verdict becomes a score.
 */

export const LLM_FAMILIES = ["llama-guard", "shieldgemma", "gpt-oss-safeguard"] as const;
export type LlmFamily = (typeof LLM_FAMILIES)[number];

/** Bumped whenever a prompt, a category mapping or a fixed score changes (it is in the provider version). */
export const LLM_PROMPTS_VERSION = "llm-prompts-2026.1";

export interface FamilyVerdict {
  categories: Partial<Record<Category, CategoryScore>>;
  details: z.core.util.JSONType;
}

export interface FamilyAdapter {
  family: LlmFamily;
  /** Our categories the family judges in text; the others stay `not-supported`. */
  categories: readonly Category[];
  /** The chat requests for one piece of text (ShieldGemma: one per policy). */
  requests(text: string): ChatRequest[];
  /** Reads the answers, in the order of `requests`; throws MalformedAnswer on anything unexpected. */
  interpret(answers: readonly ChatAnswer[]): FamilyVerdict;
}

/** The model answered something the family's format does not allow: never guessed around. */
export class MalformedAnswer extends Error {
  override readonly name = "MalformedAnswer";
}

/**
 * The family of a model name as Ollama, vLLM (Hugging Face ids) and GGUF files spell it, or null.
 * Llama Guard 1 and 2 and ShieldGemma 2 are refused: other taxonomies (LG1 O1–O6, LG2 S1–S11 in
 * another order) or images only (ShieldGemma 2), which the mappings here would misread.
 */
export function detectFamily(model: string): LlmFamily | null {
  const name = model.toLowerCase();
  if (/gpt-oss-safeguard/.test(name)) return "gpt-oss-safeguard";
  if (/shield-?gemma/.test(name)) return "shieldgemma";
  if (/llama-?guard/.test(name)) return "llama-guard";
  return null;
}

/** Why this model cannot be used with its family's mapping, or null when it can. */
export function unsupportedModelReason(model: string, family: LlmFamily): string | null {
  const name = model.toLowerCase();
  if (family === "llama-guard" && (/llama-?guard-?[12](?![0-9])/.test(name) || /llamaguard-7b/.test(name))) {
    return `${model} looks like Llama Guard 1 or 2, whose categories are numbered differently; use Llama Guard 3 or 4`;
  }
  if (family === "shieldgemma" && /shield-?gemma-?2[-_:]/.test(name)) {
    return `${model} looks like ShieldGemma 2, which judges images only; use ShieldGemma (2b, 9b, 27b)`;
  }
  return null;
}

/**
 * Scores for a yes/no verdict when the server returns no token probabilities. They are fixed, not
 * measured: the text only says on which side of 0.5 the model was, so a violation sits in `likely`
 * (flags at the default 0.6 threshold without claiming `very-likely`) and a clean answer in
 * `very-unlikely`. gpt-oss-safeguard states its confidence, which moves the score within its side.
 */
export const VERDICT_SCORES = {
  violation: { high: 0.95, medium: 0.8, low: 0.65 },
  clean: { high: 0.02, medium: 0.1, low: 0.3 },
} as const;
export type Confidence = keyof typeof VERDICT_SCORES.violation;

/** The score of a bare yes/no verdict: its probability when known, else the fixed medium score. */
export function verdictScore(violation: boolean, probability: number | null): number {
  if (probability !== null) return probability;
  return violation ? VERDICT_SCORES.violation.medium : VERDICT_SCORES.clean.medium;
}

/**
 * The probability that the answer's first word is `positive` rather than `negative`, read from the
 * first non-blank generated token and its top alternatives (this is how Llama Guard and ShieldGemma
 * turn their first token into a score). Null when the server sent no log probabilities, or when
 * the first token is not a whole verdict word (a tokenizer that splits "unsafe"): then the caller
 * uses the fixed score. A first token that contradicts the answer's text is malformed.
 */
export function firstTokenProbability(logprobs: readonly TokenLogprob[] | null, words: { positive: string; negative: string }, saidPositive: boolean): number | null {
  if (!logprobs) return null;
  const first = logprobs.find((t) => t.token.trim() !== "");
  if (!first) return null;
  const word = (token: string) => token.trim().toLowerCase();
  const chosen = word(first.token);
  if (chosen !== words.positive && chosen !== words.negative) return null;
  if ((chosen === words.positive) !== saidPositive) throw new MalformedAnswer(`the first token "${first.token}" contradicts the answer`);
  const mass = (target: string) => {
    const seen = new Set<string>();
    let p = 0;
    for (const alt of [first, ...first.topLogprobs]) {
      if (word(alt.token) !== target || seen.has(alt.token)) continue;
      seen.add(alt.token);
      p += Math.exp(alt.logprob);
    }
    return p;
  };
  const positive = mass(words.positive);
  const negative = mass(words.negative);
  if (positive === 0 && negative === 0) return null;
  const probability = positive > 0 && negative > 0 ? positive / (positive + negative) : positive > 0 ? positive : 1 - negative;
  return Math.round(Math.min(1, Math.max(0, probability)) * 10_000) / 10_000;
}

/**
 * Breaks look-alikes of chat control tokens in content we pass on (`<|eot_id|>`, `<|start|>`,
 * `<start_of_turn>`, …): servers tokenise the rendered prompt with special tokens enabled, so such
 * a string in an upload could end the user turn and write the model's answer for it. A space after
 * `<` keeps the text readable and makes it plain text to the tokenizer.
 */
export function defuseControlTokens(text: string): string {
  return text.replace(/<(?=\||\/?(?:start_of_turn|end_of_turn|bos|eos|pad)>)/gi, "< ");
}
