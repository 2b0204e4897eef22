import vocabularyJson from "./vocabulary.json";

/**
 * Reads a search query as a person means it: "two puppies on a red sofa" → an object concept
 * (dog, wanted twice: a puppy is a dog), a colour (red) and an object (couch), the filler words
 * dropped. Every concept is also matched as text (names, tags, OCR text, …), so a word that is no
 * label ("sunset", "invoice") still finds what mentions it. Quoted phrases are text concepts; a
 * leading `-` excludes a word.
 *
 * The vocabulary (vocabulary.json) maps English nouns to the detector's labels through WordNet
 * (scripts/build-search-vocabulary.ts); the label names, colours, numbers and stop words are here.
 */

/** The detector's object labels (COCO's 80 classes), as stored on assets. */
export const OBJECT_LABELS = [
  "person", "bicycle", "car", "motorcycle", "airplane", "bus", "train", "truck", "boat", "traffic light", "fire hydrant",
  "stop sign", "parking meter", "bench", "bird", "cat", "dog", "horse", "sheep", "cow", "elephant", "bear", "zebra",
  "giraffe", "backpack", "umbrella", "handbag", "tie", "suitcase", "frisbee", "skis", "snowboard", "sports ball", "kite",
  "baseball bat", "baseball glove", "skateboard", "surfboard", "tennis racket", "bottle", "wine glass", "cup", "fork",
  "knife", "spoon", "bowl", "banana", "apple", "sandwich", "orange", "broccoli", "carrot", "hot dog", "pizza", "donut",
  "cake", "chair", "couch", "potted plant", "bed", "dining table", "toilet", "tv", "laptop", "mouse", "remote",
  "keyboard", "cell phone", "microwave", "oven", "toaster", "sink", "refrigerator", "book", "clock", "vase", "scissors",
  "teddy bear", "hair drier", "toothbrush",
] as const;
export type ObjectLabel = (typeof OBJECT_LABELS)[number];

/** The colour names the labelling step gives, and the words people use for them. */
export const COLOUR_NAMES = ["red", "orange", "yellow", "green", "blue", "purple", "pink", "brown", "black", "white", "gray"] as const;
export type ColourName = (typeof COLOUR_NAMES)[number];
const COLOUR_WORDS: Record<string, ColourName> = {
  ...Object.fromEntries(COLOUR_NAMES.map((c) => [c, c])),
  grey: "gray", silver: "gray", crimson: "red", scarlet: "red", maroon: "red", burgundy: "red", golden: "yellow", gold: "yellow",
  lime: "green", olive: "green", navy: "blue", azure: "blue", turquoise: "blue", cyan: "blue", violet: "purple", lilac: "purple",
  lavender: "purple", magenta: "purple", beige: "brown", tan: "brown",
};

/** How sure a match through the vocabulary is: a "puppy" query finds dogs, not only puppies. */
export type Relation = "label" | "synonym" | "hyponym" | "hypernym" | "sibling";
export const RELATION_WEIGHT: Record<Relation, number> = { label: 1, synonym: 1, hypernym: 0.9, hyponym: 0.8, sibling: 0.6 };

export interface WantedCount {
  n: number;
  /** "several dogs": n or more. */
  atLeast: boolean;
}

export type Concept =
  | { kind: "object"; word: string; labels: string[]; relation: Relation; count: WantedCount | null }
  | { kind: "colour"; word: string; colour: ColourName }
  | { kind: "faces"; word: string; count: WantedCount | null }
  | { kind: "text"; word: string; phrase: boolean };

export interface ParsedQuery {
  concepts: Concept[];
  /** Words after a leading `-`: an asset whose text has them is left out. */
  excluded: string[];
}

interface VocabularyEntry {
  labels: string[];
  relation: Exclude<Relation, "label">;
}
const vocabulary = vocabularyJson as Record<string, VocabularyEntry>;
const LABELS = new Set<string>(OBJECT_LABELS);
/** Label spellings people type that are not the label's own name. */
const LABEL_ALIASES: Record<string, string> = { ski: "skis", doughnut: "donut", "hair dryer": "hair drier", television: "tv", telly: "tv" };

const NUMBER_WORDS: Record<string, WantedCount> = {
  one: { n: 1, atLeast: false }, single: { n: 1, atLeast: false }, lone: { n: 1, atLeast: false },
  two: { n: 2, atLeast: false }, pair: { n: 2, atLeast: false }, couple: { n: 2, atLeast: false }, both: { n: 2, atLeast: false },
  three: { n: 3, atLeast: false }, four: { n: 4, atLeast: false }, five: { n: 5, atLeast: false }, six: { n: 6, atLeast: false },
  seven: { n: 7, atLeast: false }, eight: { n: 8, atLeast: false }, nine: { n: 9, atLeast: false }, ten: { n: 10, atLeast: false },
  several: { n: 3, atLeast: true }, many: { n: 3, atLeast: true }, lots: { n: 3, atLeast: true }, group: { n: 3, atLeast: true },
  multiple: { n: 2, atLeast: true }, some: { n: 2, atLeast: true },
};

const FACE_WORDS = new Set(["face", "faces", "portrait", "portraits", "selfie", "selfies", "headshot", "headshots"]);

/** English function words and the words people put around a description of a picture. */
const STOP_WORDS = new Set(
  (
    "a an the this that these those of in on at to for from by with without into onto over under above below behind beside " +
    "near next front back top bottom inside outside between around along across through against and or but nor so than then " +
    "is are was were be been being am has have had do does did it its it's there here their them they he she his her him " +
    "we our you your i me my who whom which what where when while how all any each every no not only own same such very " +
    "just also can could would should will may might must up down out off again further once " +
    "photo photos photograph photographs picture pictures pic pics image images shot shots snapshot showing shows show " +
    "shown depicting depicts find search look looking see seen containing contains having"
  ).split(" "),
);

const IRREGULAR_PLURALS: Record<string, string> = {
  people: "person", persons: "person", men: "man", women: "woman", children: "child", kids: "kid", mice: "mouse",
  geese: "goose", teeth: "tooth", feet: "foot", oxen: "ox", cacti: "cactus", knives: "knife", wives: "wife",
  leaves: "leaf", loaves: "loaf", sheep: "sheep", fish: "fish", deer: "deer", cattle: "cattle", skis: "skis",
  scissors: "scissors", glasses: "glass", buses: "bus", dishes: "dish",
};

const MAX_COUNT = 99;

export function parseQuery(query: string): ParsedQuery {
  const excluded: string[] = [];
  const concepts: Concept[] = [];
  const phrases: string[] = [];
  const rest = query.toLowerCase().replace(/"([^"]*)"/g, (_, phrase: string) => {
    const words = tokens(phrase);
    if (words.length > 0) phrases.push(words.join(" "));
    return " ";
  });
  const words: string[] = [];
  for (const raw of rest.split(/\s+/)) {
    if (raw.startsWith("-") && raw.length > 1) {
      excluded.push(...tokens(raw.slice(1)));
      continue;
    }
    words.push(...tokens(raw));
  }

  let pendingCount: WantedCount | null = null;
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    const count = countOf(word);
    if (count) {
      pendingCount = count;
      continue;
    }
    // Two words first ("hot dog", "teddy bears", "stop sign"), then one.
    const pair = i + 1 < words.length ? objectFor(`${word} ${words[i + 1]}`) : null;
    if (pair) {
      concepts.push({ kind: "object", word: `${word} ${words[i + 1]}`, ...pair, count: pendingCount });
      pendingCount = null;
      i++;
      continue;
    }
    const colour = COLOUR_WORDS[word];
    // "orange" alone is the fruit; before a noun ("orange car") it is a colour.
    if (colour && !(word === "orange" && !followedByObject(words, i))) {
      concepts.push({ kind: "colour", word, colour });
      continue;
    }
    if (FACE_WORDS.has(word)) {
      concepts.push({ kind: "faces", word, count: pendingCount });
      pendingCount = null;
      continue;
    }
    if (STOP_WORDS.has(word)) continue;
    const object = objectFor(word);
    if (object) {
      concepts.push({ kind: "object", word, ...object, count: pendingCount });
      pendingCount = null;
      continue;
    }
    concepts.push({ kind: "text", word, phrase: false });
    pendingCount = null;
  }
  for (const phrase of phrases) concepts.push({ kind: "text", word: phrase, phrase: true });
  return { concepts: dedupe(concepts), excluded: [...new Set(excluded)] };
}

function tokens(text: string): string[] {
  return text.match(/[\p{L}\p{N}][\p{L}\p{N}'_.-]*/gu)?.map((t) => t.replace(/['.-]+$/, "")) ?? [];
}

function countOf(word: string): WantedCount | null {
  if (/^\d{1,2}$/.test(word)) {
    const n = Number(word);
    return n >= 1 && n <= MAX_COUNT ? { n, atLeast: false } : null;
  }
  return NUMBER_WORDS[word] ?? null;
}

function followedByObject(words: readonly string[], i: number): boolean {
  for (let j = i + 1; j < words.length; j++) {
    if (STOP_WORDS.has(words[j]!)) continue;
    return objectFor(words[j]!) !== null || (j + 1 < words.length && objectFor(`${words[j]} ${words[j + 1]}`) !== null);
  }
  return false;
}

/** The labels a noun (or two-word noun) stands for, trying its singular forms first. */
export function objectFor(word: string): { labels: string[]; relation: Relation } | null {
  for (const form of baseForms(word)) {
    const label = LABEL_ALIASES[form] ?? form;
    if (LABELS.has(label)) return { labels: [label], relation: "label" };
    const entry = vocabulary[form];
    if (entry) return { labels: entry.labels, relation: entry.relation };
  }
  return null;
}

/** The word's possible singulars (irregular, then by English spelling rules), then the word itself. */
function baseForms(word: string): string[] {
  const space = word.lastIndexOf(" ");
  const head = word.slice(0, space + 1);
  const last = word.slice(space + 1);
  const forms: string[] = [];
  const irregular = IRREGULAR_PLURALS[last];
  if (irregular) forms.push(irregular);
  if (last.length > 3 && last.endsWith("ies")) forms.push(`${last.slice(0, -3)}y`);
  if (last.length > 3 && last.endsWith("ves")) forms.push(`${last.slice(0, -3)}f`, `${last.slice(0, -3)}fe`);
  if (last.length > 3 && /(ch|sh|x|ss|z|o)es$/.test(last)) forms.push(last.slice(0, -2));
  if (last.length > 2 && last.endsWith("s") && !last.endsWith("ss")) forms.push(last.slice(0, -1));
  forms.push(last);
  return [...new Set(forms)].map((f) => head + f);
}

function dedupe(concepts: Concept[]): Concept[] {
  const seen = new Set<string>();
  return concepts.filter((c) => {
    const key = c.kind === "object" ? `o:${c.labels.join(",")}` : c.kind === "colour" ? `c:${c.colour}` : c.kind === "faces" ? "f" : `t:${c.word}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
