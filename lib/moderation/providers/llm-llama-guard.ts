import type { Category } from "../report";
import type { ChatAnswer } from "@/lib/net/chat-completions";
import { defuseControlTokens, firstTokenProbability, MalformedAnswer, VERDICT_SCORES, type FamilyAdapter, type FamilyVerdict } from "./llm-family";
import type { CategoryScore } from "./types";

/**
 * Llama Guard 3 (and 4, same taxonomy): the text goes in as the user turn and the model's own chat
 * template, which every distribution ships (Ollama's llama-guard3, the Hugging Face template vLLM
 * and llama-server --jinja use), wraps it in Meta's classification prompt with the S1–S14 hazard
 * list. Wrapping it ourselves as well would nest two prompts. The answer is `safe`, or `unsafe` and
 * a line of hazard codes (`unsafe\nS1,S10`); anything else is malformed.
 *
 * Score: the probability of `unsafe` as the first token when the server returns log probabilities
 * (Meta's way of scoring Llama Guard), else the fixed verdict scores (llm-family.ts). Named hazards
 * get that score; the other categories of an `unsafe` answer get the clean score, since the model
 * named what it found. A `safe` answer gives every category P(unsafe): an upper bound, as the
 * model's doubt is not split by hazard.
 */

interface Hazard {
  name: string;
  /** Null: outside our six categories; kept in the notes, never scored. */
  category: Category | null;
}

export const LLAMA_GUARD_HAZARDS: Readonly<Record<string, Hazard>> = {
  S1: { name: "Violent Crimes", category: "violence" },
  S2: { name: "Non-Violent Crimes", category: "criminal-activity" },
  S3: { name: "Sex-Related Crimes", category: "criminal-activity" },
  // Our spec has no minors qualifier: the score goes to sexual and the code stays in the notes.
  S4: { name: "Child Sexual Exploitation", category: "sexual" },
  S5: { name: "Defamation", category: null },
  S6: { name: "Specialized Advice", category: null },
  S7: { name: "Privacy", category: null },
  S8: { name: "Intellectual Property", category: null },
  S9: { name: "Indiscriminate Weapons", category: "criminal-activity" },
  S10: { name: "Hate", category: "hate" },
  S11: { name: "Suicide & Self-Harm", category: "self-harm" },
  S12: { name: "Sexual Content", category: "sexual" },
  S13: { name: "Elections", category: null },
  S14: { name: "Code Interpreter Abuse", category: null },
};

/** Harassment has no Llama Guard hazard, so it is not claimed. */
const CATEGORIES: readonly Category[] = ["sexual", "violence", "self-harm", "hate", "criminal-activity"];

/** Room for every code (`unsafe\nS1,S2,…,S14` is about 45 tokens). */
const MAX_TOKENS = 64;

function parseAnswer(answer: ChatAnswer): { unsafe: boolean; codes: string[] } {
  if (answer.finishReason !== "stop") throw new MalformedAnswer(`the answer did not end normally (finish_reason ${String(answer.finishReason)})`);
  const lines = answer.content.trim().split(/\r?\n/).map((line) => line.trim());
  if (lines.length === 1 && lines[0] === "safe") return { unsafe: false, codes: [] };
  if (lines.length !== 2 || lines[0] !== "unsafe" || !/^S\d{1,2}(\s*,\s*S\d{1,2})*$/.test(lines[1]!)) {
    throw new MalformedAnswer(`not a Llama Guard verdict: ${JSON.stringify(answer.content.slice(0, 120))}`);
  }
  const codes = [...new Set(lines[1]!.split(",").map((code) => code.trim()))];
  const unknown = codes.filter((code) => !(code in LLAMA_GUARD_HAZARDS));
  if (unknown.length > 0) throw new MalformedAnswer(`unknown hazard code ${unknown.join(", ")}`);
  return { unsafe: true, codes };
}

export const llamaGuardAdapter: FamilyAdapter = {
  family: "llama-guard",
  categories: CATEGORIES,
  requests: (text) => [{ messages: [{ role: "user", content: defuseControlTokens(text) }], maxTokens: MAX_TOKENS, logprobs: true }],
  interpret(answers): FamilyVerdict {
    if (answers.length !== 1) throw new MalformedAnswer(`expected one answer, got ${answers.length}`);
    const answer = answers[0]!;
    const { unsafe, codes } = parseAnswer(answer);
    const pUnsafe = firstTokenProbability(answer.logprobs, { positive: "unsafe", negative: "safe" }, unsafe);
    const named = new Set(codes.map((code) => LLAMA_GUARD_HAZARDS[code]!.category).filter((c): c is Category => c !== null));
    const categories: Partial<Record<Category, CategoryScore>> = {};
    for (const category of CATEGORIES) {
      let score: number;
      if (!unsafe) score = pUnsafe ?? VERDICT_SCORES.clean.medium;
      else if (named.has(category)) score = pUnsafe ?? VERDICT_SCORES.violation.medium;
      else score = VERDICT_SCORES.clean.medium;
      categories[category] = { score };
    }
    return {
      categories,
      details: {
        verdict: unsafe ? "unsafe" : "safe",
        hazards: codes.map((code) => ({ code, name: LLAMA_GUARD_HAZARDS[code]!.name, category: LLAMA_GUARD_HAZARDS[code]!.category })),
        pUnsafe,
      },
    };
  },
};
