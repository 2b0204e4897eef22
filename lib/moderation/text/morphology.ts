/**
 * Tiny English inflection for lexicon expansion: a lexicon entry names a word once ("stab~v",
 * "parasite~n") and matches its inflected forms (stabs, stabbed, stabbing; parasites).
 * Rules plus an irregular table; over-generation is harmless (a form nobody writes never matches).
 */

const IRREGULAR_VERBS: Readonly<Record<string, readonly string[]>> = {
  beat: ["beat", "beaten"], bite: ["bit", "bitten"], bleed: ["bled"], blow: ["blew", "blown"], break: ["broke", "broken"],
  bring: ["brought"], burn: ["burned", "burnt"], buy: ["bought"], catch: ["caught"], come: ["came"], cut: ["cut"],
  die: ["died"], do: ["did", "done"], drink: ["drank", "drunk"], drive: ["drove", "driven"], eat: ["ate", "eaten"],
  fall: ["fell", "fallen"], feel: ["felt"], fight: ["fought"], find: ["found"], get: ["got", "gotten"], give: ["gave", "given"],
  go: ["went", "gone"], hang: ["hung", "hanged"], have: ["had"], hit: ["hit"], hurt: ["hurt"], keep: ["kept"],
  leave: ["left"], lose: ["lost"], make: ["made"], put: ["put"], ride: ["rode", "ridden"], run: ["ran", "run"],
  see: ["saw", "seen"], sell: ["sold"], send: ["sent"], shoot: ["shot"], shut: ["shut"], slay: ["slew", "slain"],
  sleep: ["slept"], slit: ["slit"], smite: ["smote", "smitten"], spit: ["spat", "spit"], split: ["split"],
  steal: ["stole", "stolen"], stick: ["stuck"], strike: ["struck"], swing: ["swung"], take: ["took", "taken"],
  teach: ["taught"], tear: ["tore", "torn"], tell: ["told"], think: ["thought"], throw: ["threw", "thrown"],
  wake: ["woke", "woken"], write: ["wrote", "written"], choke: ["choked"], sling: ["slung"], swallow: ["swallowed"],
};

const VOWEL = /[aeiou]/;

/** Short consonant-vowel-consonant stems double their last letter: stab → stabbed, stabbing. */
function doubles(stem: string): boolean {
  return stem.length <= 4 && /[^aeiou][aeiou][^aeiouwxy]$/.test(stem) && (stem.match(/[aeiou]/g)?.length ?? 0) === 1;
}

function thirdPerson(verb: string): string {
  if (/(?:s|sh|ch|x|z|o)$/.test(verb)) return `${verb}es`;
  if (/[^aeiou]y$/.test(verb)) return `${verb.slice(0, -1)}ies`;
  return `${verb}s`;
}

function regularPast(verb: string): string {
  if (verb.endsWith("e")) return `${verb}d`;
  if (/[^aeiou]y$/.test(verb)) return `${verb.slice(0, -1)}ied`;
  if (doubles(verb)) return `${verb}${verb.at(-1)}ed`;
  return `${verb}ed`;
}

function presentParticiple(verb: string): string {
  if (verb.endsWith("ie")) return `${verb.slice(0, -2)}ying`;
  if (verb.endsWith("e") && !verb.endsWith("ee") && verb.length > 2) return `${verb.slice(0, -1)}ing`;
  if (doubles(verb)) return `${verb}${verb.at(-1)}ing`;
  return `${verb}ing`;
}

/** Base, -s, past forms and -ing of a verb. */
export function verbForms(verb: string): string[] {
  const past = IRREGULAR_VERBS[verb] ?? [regularPast(verb)];
  return [...new Set([verb, thirdPerson(verb), ...past, presentParticiple(verb)])];
}

/** Singular and plural of a noun. */
export function nounForms(noun: string): string[] {
  if (/(?:s|sh|ch|x|z)$/.test(noun)) return [noun, `${noun}es`];
  if (/[^aeiou]y$/.test(noun)) return [noun, `${noun.slice(0, -1)}ies`];
  if (!VOWEL.test(noun)) return [noun];
  return [noun, `${noun}s`];
}

/**
 * Expand one lexicon entry: every token marked `~v` (verb) or `~n` (noun) is replaced by each of its
 * forms, so "beat~v the crap out of" gives four phrases.
 */
export function expandEntry(entry: string): string[] {
  let phrases: string[][] = [[]];
  for (const token of entry.trim().split(/\s+/)) {
    const forms = token.endsWith("~v") ? verbForms(token.slice(0, -2)) : token.endsWith("~n") ? nounForms(token.slice(0, -2)) : [token];
    phrases = phrases.flatMap((p) => forms.map((f) => [...p, f]));
  }
  return phrases.map((p) => p.join(" "));
}
