import { config } from "@/lib/core/config";
import { createNsfwProvider } from "../image/nsfw";
import { createRulesTextProvider } from "../text/provider";
import { createLlmProvider } from "./llm";
import { createOpenAIModerationProvider } from "./openai";
import type { ClassifierProvider } from "./types";

/**
 * The providers chosen by configuration (SIEVE_CLASSIFIER_PROVIDERS): `local` = the rule/lexicon
 * text classifier and nsfwjs for images and frames; `openai` = an OpenAI-moderation-compatible
 * API (SIEVE_OPENAI_MODERATION_URL + _KEY); `llm` = a safety model (Llama Guard 3, ShieldGemma,
 * gpt-oss-safeguard) behind an OpenAI-compatible chat-completions API (SIEVE_LLM_*). Results of
 * several providers are combined per category.
 */
let cached: ClassifierProvider[] | undefined;

export function configuredProviders(): ClassifierProvider[] {
  if (cached) return cached;
  const cfg = config().classifiers;
  const providers: ClassifierProvider[] = [];
  for (const name of cfg.providers) {
    if (name === "local") providers.push(createRulesTextProvider(), createNsfwProvider());
    else if (name === "openai") {
      if (!cfg.openai.baseUrl || !cfg.openai.apiKey) {
        throw new Error("SIEVE_CLASSIFIER_PROVIDERS includes openai: set SIEVE_OPENAI_MODERATION_URL and SIEVE_OPENAI_MODERATION_KEY");
      }
      providers.push(createOpenAIModerationProvider({ baseUrl: cfg.openai.baseUrl, apiKey: cfg.openai.apiKey, model: cfg.openai.model }));
    } else if (name === "llm") {
      const { baseUrl, model, ...settings } = cfg.llm;
      if (!baseUrl || !model) throw new Error("SIEVE_CLASSIFIER_PROVIDERS includes llm: set SIEVE_LLM_BASE_URL and SIEVE_LLM_MODEL");
      providers.push(createLlmProvider({ baseUrl, model, ...settings }));
    } else throw new Error(`Unknown classifier provider "${name}" in SIEVE_CLASSIFIER_PROVIDERS (use local, openai, llm)`);
  }
  cached = providers;
  return providers;
}
