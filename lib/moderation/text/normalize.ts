/**
 * Text normalisation for the rule/lexicon text classifier.
 *
 * Goal: map evasive spellings onto one canonical, lowercase, ASCII-ish form so that
 * lexicon rules can be written once. Steps (in order):
 *  1. strip zero-width / invisible characters (ZWSP, ZWJ, ZWNJ, BOM, word joiner, soft hyphen)
 *  2. Unicode NFKC (full-width letters, ligatures, mathematical alphanumerics → plain)
 *  3. case folding
 *  4. homoglyphs (Cyrillic / Greek look-alikes → Latin), then diacritics removed
 *  5. quotes unified (curly → straight); apostrophes inside words dropped ("i'll" → "ill")
 *  6. per token: in-word separators removed ("k.i.l.l", "k-i-l-l" → "kill"), leetspeak
 *     ("k1ll", "h@te", "$uicide") decoded, letters repeated 3+ times squeezed to 2
 *  7. runs of single letters separated by spaces joined ("k i l l" → "kill")
 *  8. a few chat abbreviations expanded ("u" → "you", "ur" → "your", "r" → "are")
 *
 * The output keeps sentence punctuation (. ! ?) and double quotes so context detection
 * can find sentence boundaries and quotations; other punctuation becomes a space.
 */

const INVISIBLE = /[\u00AD\u034F\u061C\u115F\u1160\u17B4\u17B5\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u206A-\u206F\u3164\uFEFF\uFFA0]/g;

/** Look-alike letters from Cyrillic and Greek (lowercase, after case folding). */
const HOMOGLYPHS: Readonly<Record<string, string>> = {
  // Cyrillic
  "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p",
  "с": "c", "т": "t", "у": "y", "х": "x", "ѕ": "s", "і": "i", "ї": "i", "ј": "j", "ԁ": "d",
  "ɡ": "g", "һ": "h", "ӏ": "l", "ԛ": "q", "ԝ": "w", "ү": "y", "п": "n", "г": "r", "ь": "b",
  // Greek
  "α": "a", "β": "b", "γ": "y", "ε": "e", "η": "n", "ι": "i", "κ": "k", "ν": "v", "ο": "o",
  "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "ω": "w", "ς": "s", "σ": "o", "μ": "u", "ζ": "z",
  // Latin-ish extras
  "ı": "i", "ł": "l", "ø": "o", "đ": "d", "ß": "ss", "æ": "ae", "œ": "oe", "ſ": "s",
};

/** Leetspeak substitutions applied only inside tokens that also contain letters. */
const LEET: Readonly<Record<string, string>> = {
  "0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "8": "b", "9": "g",
  "@": "a", "$": "s", "¢": "c", "!": "i", "|": "l", "€": "e", "+": "t",
};

/** Whole-token chat abbreviations and leet words. */
const ABBREVIATIONS: Readonly<Record<string, string>> = {
  u: "you", ya: "you", yu: "you", ur: "your", youre: "youre", r: "are", ppl: "people",
  pls: "please", plz: "please", h8: "hate", h8e: "hate", ima: "imma", wanna: "wanna",
  gonna: "gonna", dont: "dont", cuz: "because", bc: "because", b4: "before", sh1t: "shit",
};

const IN_WORD_SEPARATED = /^[a-z0-9@$](?:[.\-_*·•~/\\:]+[a-z0-9@$]){2,}$/;
const SEPARATOR_CHARS = /[.\-_*·•~/\\:]+/g;
const NUMERIC_LIKE = /^\d+(?:st|nd|rd|th|s|am|pm|k|m|x|g|kg|mg|ml|mm|cm|km|h|hr|hrs|min|mins|p|fps|gb|mb|tb|v|w)?$/;

function foldChars(input: string): string {
  let out = "";
  for (const ch of input) out += HOMOGLYPHS[ch] ?? ch;
  return out;
}

function decodeLeet(token: string): string {
  if (NUMERIC_LIKE.test(token)) return token;
  if (!/[a-z]/.test(token)) return token;
  if (!/[0-9@$¢!|€+]/.test(token)) return token;
  let out = "";
  for (let i = 0; i < token.length; i++) {
    const ch = token[i] as string;
    // "!" and "+" only count as letters when sandwiched between word characters.
    if ((ch === "!" || ch === "+") && !(i > 0 && i < token.length - 1)) {
      out += ch;
      continue;
    }
    out += LEET[ch] ?? ch;
  }
  return out;
}

/** Words commonly masked with asterisks ("f*ck", "k*ll"); a masked token is restored if exactly one fits. */
const MASKABLE = ["fuck", "fucking", "fucker", "shit", "bitch", "cunt", "kill", "dick", "cock", "slut", "whore", "rape", "porn", "nigger", "faggot", "suicide", "die", "pussy"];

function unmask(core: string): string {
  if (!/^[a-z]+\*+[a-z*]*$/.test(core)) return core;
  const re = new RegExp(`^${core.replace(/\*+/g, "[a-z]{1,3}")}$`);
  const fits = MASKABLE.filter((w) => w.length >= core.replace(/\*+/g, "").length + 1 && re.test(w));
  return fits.length === 1 ? (fits[0] as string) : core;
}

function normalizeToken(raw: string): string {
  if (raw === "") return raw;
  // Split off leading/trailing punctuation we want to keep as its own token.
  const m = /^(["(]*)(.*?)([.!?,;:")]*)$/.exec(raw);
  let core = m?.[2] ?? raw;
  const lead = m?.[1] ?? "";
  const trail = m?.[3] ?? "";
  if (core in ABBREVIATIONS) return lead + (ABBREVIATIONS[core] as string) + trail;
  core = unmask(core);
  if (IN_WORD_SEPARATED.test(core) && /[a-z]/.test(core)) {
    const parts = core.split(SEPARATOR_CHARS);
    if (parts.every((p) => p.length === 1)) core = parts.join("");
  }
  core = decodeLeet(core);
  core = core.replace(/([a-z])\1{2,}/g, "$1$1");
  if (core in ABBREVIATIONS) core = ABBREVIATIONS[core] as string;
  return lead + core + trail;
}

/** Letters that are commonly single-letter chat words; a 3-run made only of them is kept. */
const CHAT_SINGLES = new Set(["u", "r", "a", "i", "y", "n", "b", "c", "o"]);

function joinSpacedLetters(tokens: string[]): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < tokens.length) {
    let j = i;
    while (j < tokens.length && /^[a-z]$/.test(tokens[j] as string)) j++;
    const run = tokens.slice(i, j);
    const joinable = run.length >= 4 || (run.length === 3 && run.some((t) => !CHAT_SINGLES.has(t)));
    if (run.length > 0 && joinable) {
      out.push(run.join(""));
      i = j;
    } else if (run.length > 0) {
      out.push(...run);
      i = j;
    } else {
      out.push(tokens[i] as string);
      i++;
    }
  }
  return out;
}

/** Normalise text for lexicon matching. Deterministic and allocation-light. */
export function normalizeText(text: string): string {
  let s = text.replace(INVISIBLE, "");
  s = s.normalize("NFKC").toLowerCase();
  s = foldChars(s);
  s = s.normalize("NFD").replace(/\p{M}+/gu, "");
  s = s.replace(/[\u2018\u2019\u02BC\u2032\u0060\u00B4]/g, "'").replace(/[\u201C\u201D\u201E\u00AB\u00BB\u2033]/g, '"');
  s = s.replace(/([a-z0-9])'([a-z])/g, "$1$2"); // i'll → ill, don't → dont
  s = s.replace(/'/g, '"');
  s = s.replace(/[^a-z0-9\s.!?,;:"()@$¢|€+*\-_·•~/\\]/g, " ");
  const tokens = s.split(/\s+/).filter((t) => t !== "").map(normalizeToken);
  const joined = joinSpacedLetters(tokens).join(" ");
  // Separate sentence punctuation and quotes from words; drop remaining symbols.
  return joined
    .replace(/[,;:()*_·•~/\\|+€-]+/g, " ")
    .replace(/([.!?"])/g, " $1 ")
    .replace(/\s+/g, " ")
    .trim();
}
