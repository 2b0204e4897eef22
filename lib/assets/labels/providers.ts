import type { FrameLabels } from "@/lib/assets/field-schemas";
import { config } from "@/lib/core/config";
import { processSingleton } from "@/lib/core/singleton";
import { labelImage } from "@/lib/media/vision";
import { describeImage } from "@/lib/media/vision/describe";

/**
 * Who looks at an image for its labels, chosen by SIEVE_IMAGE_LABEL_PROVIDERS like the classifier
 * providers: `detector` (the shipped models: COCO objects, colours, faces; always) and `describer`
 * (a vision-language model behind an OpenAI-compatible chat-completions endpoint, one sentence per
 * image). A better model plugs in here: what it sees goes into the labels, and search reads their
 * terms (aggregate.ts: objects, colours and faces; store.ts: a description's words).
 */
export interface SeenInImage {
  labels?: FrameLabels;
  description?: string;
  /** The model, for the labels' `model`. */
  model: string;
}

export interface ImageLabelProvider {
  readonly id: "detector" | "describer";
  /** Whether it also looks at a video's frames (a describer does not: a call per frame costs too much). */
  readonly framesToo: boolean;
  see(image: Buffer, options: { minObjectScore: number }): Promise<SeenInImage>;
}

const detector: ImageLabelProvider = {
  id: "detector",
  framesToo: true,
  async see(image, options) {
    const seen = await labelImage(image, { minObjectScore: options.minObjectScore });
    return { labels: { objects: seen.objects, colours: seen.colours, faces: seen.faces }, model: seen.model };
  },
};

function describer(): ImageLabelProvider {
  const settings = config().pipeline.imageDescriber;
  const endpoint = {
    providerId: "describer",
    baseUrl: settings.baseUrl!,
    model: settings.model!,
    apiKey: settings.apiKey,
    attemptTimeoutMs: settings.attemptTimeoutMs,
    retries: settings.retries,
    retryDelayMs: 500,
  };
  return {
    id: "describer",
    framesToo: false,
    async see(image) {
      // Room for every attempt (the first and SIEVE_IMAGE_DESCRIBER_RETRIES more) and the waits between them.
      const deadline = Date.now() + (settings.retries + 1) * settings.attemptTimeoutMs + 4_000;
      return { description: await describeImage(image, endpoint, { deadline }), model: `describer:${endpoint.model}` };
    },
  };
}

/** The configured providers, the detector first. */
export function imageLabelProviders(): readonly ImageLabelProvider[] {
  return processSingleton("imageLabelProviders", () => config().pipeline.imageLabelProviders.map((id) => (id === "detector" ? detector : describer())));
}
