/** What the nsfwjs model is: its identity (part of the provider version), classes and input size. */

export const NSFW_PROVIDER_ID = "nsfwjs";
/** The installed nsfwjs version (a test checks it against node_modules/nsfwjs/package.json). */
export const NSFWJS_VERSION = "4.4.0";
export const NSFW_MODEL = "mobilenetv2-224";
/** Revision of NSFW_SCORE_MAPPING; bump it when the weights change so reports stay comparable. */
export const NSFW_MAPPING_REVISION = 1;
export const NSFW_PROVIDER_VERSION = `nsfwjs-${NSFWJS_VERSION}-${NSFW_MODEL}+map${NSFW_MAPPING_REVISION}`;

export const NSFW_CLASSES = ["Drawing", "Hentai", "Neutral", "Porn", "Sexy"] as const;
export type NsfwClass = (typeof NSFW_CLASSES)[number];
export type NsfwProbabilities = Record<NsfwClass, number>;

/** The model's input: NSFW_INPUT_SIZE × NSFW_INPUT_SIZE RGB pixels. */
export const NSFW_INPUT_SIZE = 224;
