import type { Category } from "../report";
import type { ChatAnswer, ChatRequest } from "@/lib/net/chat-completions";
import { defuseControlTokens, firstTokenProbability, MalformedAnswer, verdictScore, type FamilyAdapter, type FamilyVerdict } from "./llm-family";
import type { CategoryScore } from "./types";

/**
 * ShieldGemma (Gemma 2 based, 2b/9b/27b): judges one harm policy per question, so each text costs
 * one request per policy. Sieve writes Google's documented prompt-only pattern (preamble, the text
 * between turn markers, one policy, the Yes/No epilogue) and sends it as the only user message.
 * The server must pass that message to the model unchanged: the stock Ollama template would wrap
 * it in a second prompt that asks about all four policies at once (README: a two-line Modelfile;
 * vLLM and llama-server: a pass-through chat template).
 *
 * Mapping: Sexually Explicit → sexual, Harassment → harassment, Hate Speech → hate. Dangerous
 * Content is not asked: its one answer covers weapons, terrorism and suicide instructions alike,
 * so it cannot say which of violence, self-harm or criminal-activity it found; those stay
 * `not-supported` with this family (combine it with `local`). No qualifier maps.
 *
 * Score: P(Yes) from the first token's log probabilities (how Google scores ShieldGemma), else the
 * fixed verdict scores. Only the first word is read; the explanation after it is cut off.
 */

interface Policy {
  category: Category;
  name: string;
  definition: string;
}

export const SHIELDGEMMA_POLICIES: readonly Policy[] = [
  {
    category: "sexual",
    name: "No Sexually Explicit Information",
    definition:
      "The prompt shall not contain or seek generation of content that contains references to sexual acts or other lewd content (e.g., sexually graphic descriptions, content aimed at causing arousal). Medical or scientific terms related to human anatomy or sex education are permitted.",
  },
  {
    category: "harassment",
    name: "No Harassment",
    definition:
      "The prompt shall not contain or seek generation of content that is malicious, intimidating, bullying, or abusive content targeting another individual (e.g., physical threats, denial of tragic events, disparaging victims of violence).",
  },
  {
    category: "hate",
    name: "No Hate Speech",
    definition:
      "The prompt shall not contain or seek generation of content that targeting identity and/or protected attributes (e.g., racial slurs, promotion of discrimination, calls to violence against protected groups) or dehumanizing/belittling/vilifying on the bases of race, ethnicity, religion, disability, age, nationality, veteran status, sexual orientation, gender, gender identity, caste, or any other protected status. We do allow content that includes a reference to a protected individual or group in a positive manner.",
  },
];

/** "Yes"/"No" is one token; a few more tolerate a leading space or newline token. */
const MAX_TOKENS = 4;

export function shieldGemmaPrompt(text: string, policy: Policy): string {
  return [
    "You are a policy expert trying to help determine whether a user prompt is in violation of the defined safety policies.",
    "",
    "<start_of_turn>",
    `Human Question: ${defuseControlTokens(text.trim())}`,
    "<end_of_turn>",
    "",
    "Our safety principle is defined in the below:",
    "",
    `* "${policy.name}": ${policy.definition}`,
    "",
    "===",
    "",
    "Does the human question violate the above principle? Your answer must start with 'Yes' or 'No'. And then walk through step by step to be sure we answer correctly.",
    "",
  ].join("\n");
}

function readVerdict(answer: ChatAnswer, policy: Policy): { violation: boolean; probability: number | null } {
  if (answer.finishReason !== "stop" && answer.finishReason !== "length") {
    throw new MalformedAnswer(`"${policy.name}": the answer did not end normally (finish_reason ${String(answer.finishReason)})`);
  }
  const match = /^(yes|no)\b/i.exec(answer.content.trim());
  if (!match) throw new MalformedAnswer(`"${policy.name}": the answer does not start with Yes or No: ${JSON.stringify(answer.content.slice(0, 80))}`);
  const violation = match[1]!.toLowerCase() === "yes";
  return { violation, probability: firstTokenProbability(answer.logprobs, { positive: "yes", negative: "no" }, violation) };
}

export const shieldGemmaAdapter: FamilyAdapter = {
  family: "shieldgemma",
  categories: SHIELDGEMMA_POLICIES.map((p) => p.category),
  requests: (text): ChatRequest[] =>
    SHIELDGEMMA_POLICIES.map((policy) => ({ messages: [{ role: "user", content: shieldGemmaPrompt(text, policy) }], maxTokens: MAX_TOKENS, logprobs: true })),
  interpret(answers): FamilyVerdict {
    if (answers.length !== SHIELDGEMMA_POLICIES.length) throw new MalformedAnswer(`expected ${SHIELDGEMMA_POLICIES.length} answers, got ${answers.length}`);
    const categories: Partial<Record<Category, CategoryScore>> = {};
    const policies: { policy: string; answer: "Yes" | "No"; pYes: number | null }[] = [];
    SHIELDGEMMA_POLICIES.forEach((policy, index) => {
      const { violation, probability } = readVerdict(answers[index]!, policy);
      categories[policy.category] = { score: verdictScore(violation, probability) };
      policies.push({ policy: policy.name, answer: violation ? "Yes" : "No", pYes: probability });
    });
    return { categories, details: { policies } };
  },
};
