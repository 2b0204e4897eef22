/**
 * Versioned lexicon for the local text classifier: rule types, shared phrase fragments,
 * the pattern compiler, context (qualifier) rules and benign look-alike phrases.
 * Category rules live in rules-harm.ts (violence, self-harm, harassment) and
 * rules-other.ts (sexual, hate, criminal-activity); both are written against normalizeText() output
 * and assembled in classify.ts.
 *
 * Bump TEXT_LEXICON_VERSION whenever any rule, weight or context factor changes.
 */

import { CATEGORIES, type Category } from "@/lib/moderation/report";

export const TEXT_LEXICON_VERSION = "text-lexicon-2026.12.0";

/** The report's six categories (one list for the whole project). */
export const TEXT_CATEGORIES = CATEGORIES;
export type TextCategory = Category;

export const CONTEXT_QUALIFIERS = ["historical", "documentary", "fictional", "support-prevention"] as const;
export type ContextQualifier = (typeof CONTEXT_QUALIFIERS)[number];

/** One effect of a rule: adds `weight` evidence to a category (and optionally a qualifier). */
export interface RuleHit {
  category: TextCategory;
  qualifier?: string;
  weight: number;
}

export interface RuleSpec {
  id: string;
  /** Regex source over normalised text; plain letters are compiled to tolerate repeats. */
  pattern: string;
  hits: RuleHit[];
  /** false: the pattern already encodes negation (e.g. "dont want to live"), skip negation damping. */
  negatable?: boolean;
  /** false: context qualifiers (fiction, news …) never damp this rule (e.g. sexual content with minors). */
  contextual?: boolean;
}

export interface CompiledRule extends RuleSpec {
  regex: RegExp;
}

/** Parse "category/qualifier:weight" shorthand. */
export function hit(spec: string): RuleHit {
  const m = /^([a-z-]+)(?:\/([a-z-]+))?:([0-9.]+)$/.exec(spec);
  if (!m) throw new Error(`bad rule hit: ${spec}`);
  const category = m[1] as TextCategory;
  if (!TEXT_CATEGORIES.includes(category)) throw new Error(`unknown category in ${spec}`);
  return m[2] ? { category, qualifier: m[2], weight: Number(m[3]) } : { category, weight: Number(m[3]) };
}

export function rule(id: string, pattern: string, hits: string[], opts: Partial<Pick<RuleSpec, "negatable" | "contextual">> = {}): RuleSpec {
  return { id, pattern, hits: hits.map(hit), ...opts };
}

/**
 * Make every plain literal letter tolerate repetition ("kill" also matches "kiill", "killll")
 * so squeezed spellings from normalisation still hit. Escapes, character classes and letters
 * that already carry a quantifier are left untouched.
 */
export function repeatTolerant(source: string): string {
  let out = "";
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const ch = source[i] as string;
    const prev = i > 0 ? source[i - 1] : "";
    const next = source[i + 1] ?? "";
    if (prev === "\\") {
      out += ch;
      continue;
    }
    if (ch === "\\") {
      out += ch;
      continue;
    }
    if (ch === "[") inClass = true;
    else if (ch === "]") inClass = false;
    out += ch;
    if (!inClass && /[a-z]/.test(ch) && !/[?*+{]/.test(next)) out += "+";
  }
  return out;
}

export function compilePattern(source: string): RegExp {
  return new RegExp(`\\b(?:${repeatTolerant(source)})\\b`, "g");
}

// ---- shared fragments (regex sources over normalised text) ----

/** Second-person target. */
export const YOU = "(?:you|yourself|your (?:family|kids|wife|husband|mom|mother|dad|sister|brother|whole family)|you all|yall)";
/** Third-person / specific human target. */
export const THEM = "(?:him|her|them|everyone|everybody|all of them|my (?:boss|wife|husband|teacher|ex|neighbou?r|classmates|coworkers|dad|mom|family)|the (?:teacher|president|principal|class|whole class|school)|that (?:guy|girl|bitch|bastard|man|woman|kid))";
/** First-person future / intent. */
export const WILL = "(?:i will|ill|i shall|im going to|i am going to|im gonna|i am gonna|imma|gonna|i wanna|i want to|i(?:m| am)? (?:about|ready|coming|planning) to|i plan to|we will|were going to|we are going to|were gonna|we are gonna)";
/** Violent verbs (base form). */
export const VIOLENT_VERB = "(?:kill|murder|stab|shoot|strangle|choke|beat|punch|hurt|slit|behead|slaughter|butcher|bash|burn|torture|bury|hang|lynch|execute|skin|gut|cut|kick|rape|run over|blow up|shank|bomb|stomp|drown|poison)";
/** Up to two filler words (adverbs, "fucking", "the shit out of" is handled separately). */
export const GAP = "(?:\\w+ ){0,2}";

// ---- context rules ----

export interface ContextSpec {
  id: string;
  context: ContextQualifier;
  pattern: string;
  weight: number;
}

export const CONTEXT_RULES: readonly ContextSpec[] = [
  { id: "ctx.documentary.news", context: "documentary", weight: 0.8, pattern: "police (?:said|say|says|report(?:ed)?)|according to (?:police|officials|authorities|reports|the report|witnesses|prosecutors)|(?:was|were|been|got) (?:arrested|charged|convicted|sentenced|indicted)|pleaded (?:guilty|not guilty)|charged with|the suspect|suspects|investigators|prosecutors|the court heard|jury|trial|breaking news|reporters?|journalists?|news (?:report|article|outlet)|officials said|authorities said" },
  { id: "ctx.documentary.sources", context: "documentary", weight: 0.7, pattern: "(?:police|sheriff|officials?|authorities|investigators|prosecutors|witnesses|the coroner|coroners|a spokes(?:person|man|woman)|the (?:mayor|minister|governor|hospital|club|court|report|inquiry|fbi|ministry)) (?:said|say|says|confirmed|confirm|reported|report|told|warned|warn|added|heard|found|ruled|condemned)|according to|(?:officials|police|authorities) (?:are|were) (?:asking|investigating|searching)|breaking|death toll|has risen to|at least \\d+ (?:people )?(?:dead|killed|injured|wounded|hurt)|(?:were|was) (?:killed|injured|wounded|found dead|taken to hospital)|inquest|the defendant|after calling for|(?:was|were) banned|the victim|survivors of|(?:a|the) (?:report|study|survey|inquiry) (?:found|warns|documents|shows)" },
  { id: "ctx.documentary.counter-speech", context: "documentary", weight: 0.7, pattern: "(?:is|are|was|its|that s|thats) (?:racist|sexist|homophobic|transphobic|antisemitic|islamophobic|bigoted|hateful|a myth|a lie|false|not okay|not ok|harmful|dehumani[sz]ing)|(?:racist|sexist|homophobic|antisemitic|islamophobic) (?:chants|abuse|slurs?|jokes|remarks|conspiracy|tropes?|attacks)|conspiracy theor(?:y|ies)|stereotypes?|propaganda|hate speech|(?:stop|quit) (?:saying|calling|using)|needs to stop|bans? anyone (?:who|that)|read the rules|how to respond (?:when|to)|(?:a|the) slur|the (?:word|term) \\w+|(?:was|were|been|being|got|get) called (?:a |an )?\\w+|it s not okay|its not okay|so other kids know|myth|debunk(?:ed|ing)?|(?:comparing|equating|conflating) (?:\\w+ ){1,3}(?:to|with)|(?:dangerous|harmful|racist|sexist|hateful) (?:lie|myth|stereotype|trope|smear)s?|is a smear|smears?|leads? to violence|is how (?:genocides?|atrocities|massacres) (?:start|begin)|speak up|(?:call|calling) (?:it )?out" },
  { id: "ctx.documentary.sport", context: "documentary", weight: 0.6, pattern: "boxer|fighter|ufc|mma|bout|(?:first|second|third|final) round|knock(?:ed)? ?(?:him |her )?out|opponent|referee|on points|tournament|championship|wrestling|rugby|tackle|fencing|paintball|hunters?|hunting|deer season|shooting range|clay pigeons?|call of duty|sparring" },
  { id: "ctx.documentary.reporting", context: "documentary", weight: 0.5, pattern: "(?:he|she|they|the man|the woman|someone|somebody) (?:said|says|told|wrote|yelled|shouted|posted|texted)|reportedly|allegedly|documentary|study (?:found|shows)|statistics|survey|research(?:ers)?" },
  { id: "ctx.historical", context: "historical", weight: 0.8, pattern: "in (?:the )?1\\d{3}s?|during (?:the )?(?:world war|ww ?(?:i|ii|1|2|one|two)|holocaust|civil war|crusades|genocide|occupation|cold war)|during the (?:\\w+ ){0,3}(?:war|revolution|partition|genocide|occupation|famine|era|reign|invasion|crusades?|plague|uprising|empire|dynasty)|in (?:the )?\\d+(?:st|nd|rd|th) century|nazis?|(?:roman|viking|medieval|ancient|colonial|prohibition|victorian) (?:\\w+ )?(?:era|times|empire|gladiators|raiders)|gladiators|vikings|inquisition|khmer rouge|jim crow|apartheid|witch trials|history of|historians?|historically|centuries ago|in ancient|(?:medieval|ancient) times|museum|memorial|anniversary of|history (?:class|lesson|book)" },
  { id: "ctx.fictional", context: "fictional", weight: 0.8, pattern: "(?:in|from|for) (?:the|my|this|a|his|her|our|that) (?:novel|book|story|short story|movie|film|tv show|show|series|game|video game|play|poem|script|screenplay|fanfic|fan fiction|episode|chapter|comic|manga|anime|campaign|dnd campaign|rpg)|my (?:character|oc|protagonist|villain|antagonist|novel|story|screenplay|fanfic|rogue|paladin|party|raid team)|(?:the|this|that) (?:movie|film|show|series|episode|novel|game|anime|manga|play|poem|book)s?|movies?|films?|season \\d+|episode|trailer|writing (?:prompt|tip)|horror|thriller|fanfic|d ?(?:and|n) ?d|among us|fortnite|gta|assassins creed|squid game|breaking bad|macbeth|juliet|zombie|true crime|book club|stage combat|the (?:villain|protagonist|antagonist|narrator|main character)|fictional|roleplay|once upon a time|chapter \\d+|plot twist|the scene where|writing prompt" },
  { id: "ctx.support.crisis", context: "support-prevention", weight: 0.9, pattern: "(?:suicide|crisis|prevention|support|help) ?(?:line|hotline|lifeline|services?)|call (?:988|911|999|112|samaritans|a helpline|a hotline|emergency services)|988|text home to|samaritans|if you(?:re| are) (?:thinking|feeling|having thoughts|struggling|in crisis)|if you or someone|you are not alone|youre not alone|reach out (?:to|for)|talk(?:ing|ed)? to (?:someone|a (?:therapist|doctor|counsell?or|professional|trusted adult))|helped me (?:stop|get through|cope|heal)|support group|workshop on|signs of|(?:my )?therap(?:y|ist)|safety plan|helpline|survivors? of|it (?:does )?gets? better|(?:im|i am) (?:glad|safe|not ashamed)|in recovery|recovering from|(?:years|months|days|weeks) clean|harm reduction|naloxone|(?:seek|get) (?:professional )?help|mental health (?:resources|support)|stay safe" },
  { id: "ctx.support.helping", context: "support-prevention", weight: 0.8, pattern: "how (?:to|can i|do i|can we|do we|should i) (?:help|support|talk to) (?:someone|a friend|my (?:friend|son|daughter|child|kid|partner|student)|a loved one|people)|warning signs|(?:suicide|self harm|overdose|violence|abuse) (?:prevention|awareness)|prevention|awareness|recovery|(?:days|months|years) clean|protect (?:my|your|our|the) \\w+ from|report (?:a|the|my|it|this) (?:\\w+ ){0,2}to (?:the police|the cops|police)|(?:protect yourself|avoid|recognize|spot|report|prevent)(?: yourself)? (?:from )?(?:scams?|fraud|phishing|abuse|being scammed|grooming|harassment|bullying|hate speech)" },
  { id: "ctx.support.health", context: "support-prevention", weight: 0.8, pattern: "is it (?:safe|normal|healthy|okay|ok|harmful|bad|legal) (?:to|for)|is (?:\\w+ ){0,2}(?:normal|harmful|healthy) \\?|pregnan\\w*|(?:my|a|the) (?:doctor|gp|gyn(?:a)?ecologist|nurse|midwife)|(?:my|our) (?:son|daughter|teen|teenager|kids?|child) (?:asked|about)|talk to (?:my|our|your) (?:teen|teenager|kids?|son|daughter|child) about|puberty|contraception|unrealistic expectations|sex ed\\w*" },
];

/** Per-category damping when a context is present (1 = no effect). */
export const CONTEXT_FACTORS: Readonly<Record<ContextQualifier, Readonly<Record<TextCategory, number>>>> = {
  documentary: { sexual: 0.8, violence: 0.55, "self-harm": 0.6, harassment: 0.5, hate: 0.6, "criminal-activity": 0.5 },
  historical: { sexual: 0.9, violence: 0.6, "self-harm": 0.8, harassment: 0.7, hate: 0.6, "criminal-activity": 0.6 },
  fictional: { sexual: 0.8, violence: 0.5, "self-harm": 0.6, harassment: 0.6, hate: 0.7, "criminal-activity": 0.6 },
  "support-prevention": { sexual: 0.65, violence: 0.6, "self-harm": 0.3, harassment: 0.6, hate: 0.7, "criminal-activity": 0.6 },
};

/** Local damping factors. */
export const NEGATION_FACTOR = 0.2;
export const QUOTATION_FACTOR = 0.5;
/** Combined damping never goes below this, so context lowers but never erases evidence. */
export const MIN_FACTOR = 0.15;

export const NEGATION = /\b(?:never|not|dont|do not|doesnt|wont|will not|wouldnt|would not|cant|cannot|can not|didnt|did not|isnt|arent|aint|neither|nor|refuse to|stop (?:saying|telling))\b/;

/**
 * Benign look-alike phrases: blanked out before category rules run, so idioms like
 * "killed it" or "shoot a photo" do not feed violence. Kept narrow on purpose.
 */
export const BENIGN_PHRASES: readonly { id: string; pattern: string }[] = [
  { id: "benign.kill.idiom", pattern: "(?:kill|killed|killing|kills) (?:it|the (?:process|task|job|app|program|server|session|lights|engine|mood|vibe|game|competition)|(?:this|that|the|my|your) (?:presentation|exam|test|interview|show|performance|set|audition|speech|pitch|look)|(?:a|the|some) (?:bottle|pint|few hours)|time|(?:two|2) birds|the (?:weeds|bugs?|germs?|bacteria))|kill ?(?:-)?9|pkill|killall|killer (?:app|deal|feature|look|outfit|workout|track|song|view|heels)|(?:you|they|she|he) (?:are|is|were)? ?killing it|dressed to kill|kill (?:me|us) (?:now )?(?:lol|lmao|haha)" },
  { id: "benign.die.idiom", pattern: "(?:dying|died|dead|die) (?:of|from|with|laughing) (?:laughter|laughing|embarrassment|boredom|cuteness)|(?:im|i am|literally) (?:dying|dead) (?:lol|lmao|haha|rn)|to die for|die hard|die cast|dying to (?:see|know|try|meet|go|watch)|(?:battery|phone|laptop|plant|plants|car) (?:is |has |)?(?:dying|died|dead)|dead (?:tired|serious|end|line|battery|lift)|deadline" },
  { id: "benign.shoot.idiom", pattern: "shoot (?:my|your|his|her|our|their) shot|(?:shoot|shooting|shot) (?:a|the|some|my|our|this)? ?(?:photos?|pictures?|video|film|movie|scene|hoops|the breeze|me an? (?:email|message|text|dm)|for the stars|a message)|photo ?shoots?|(?:photo|video|film) shoot|shot (?:glass|of (?:espresso|tequila|vodka|whiskey))|(?:flu|covid|booster|vaccine) shot|long shot|screenshot|great shot|nice shot|shoot(?: me)? (?:an? )?(?:email|message)" },
  { id: "benign.cut.idiom", pattern: "cut (?:the|some|up|into)? ?(?:onions?|vegetables|veggies|carrots|bread|cake|hair|costs?|budget|paper|fabric|grass|lawn|cord|cheese|meat|wood|tomatoes?|chicken|deal|corners|class|ties|losses|it out)|(?:hair|price|tax|budget|job|power) ?cuts?|(?:paper|shaving) cut|cut and paste|cut off (?:the )?(?:crust|tags?)" },
  { id: "benign.hate.title", pattern: "the hate u give|the hate you give|i hate (?:mondays|it when|this weather|the rain|traffic|homework|waiting|when)|love hate relationship" },
  { id: "benign.medical", pattern: "breast (?:cancer|feeding|milk|exam|screening|pump)|(?:breastfeeding|mammogram)|testicular (?:cancer|exam)|sex (?:education|ed|of the baby|chromosomes?|differences|hormones)|sexual (?:health|education|orientation)|cervical (?:cancer|screening)|prostate (?:cancer|exam)" },
  { id: "benign.reclaimed", pattern: "dyke (?:march|bar|night|pride)|slut ?walk|(?:proud|happy) (?:to be )?(?:a )?(?:queer|dyke|gay)|were here were queer|queer (?:theory|studies|woman|women|man|men|people|community|joy)" },
  { id: "benign.art", pattern: "nude (?:statues?|sculptures?|figures?|paintings?|portraits?|model(?:ing)?|drawing|life drawing|beach(?:es)?)|nudist|naturist|life drawing" },
  { id: "benign.pest", pattern: "pest control|(?:rats|mice|cockroaches|roaches|ants|insects|termites|bugs) (?:in|under|around) (?:the|my|our) (?:basement|kitchen|house|attic|garden|walls|flat|apartment|garage)" },
  { id: "benign.misc", pattern: "crack (?:a joke|the code|an egg|open a)|bomb(?:ed)? (?:the|my|that) (?:test|exam|interview)|(?:da )?bomb dot com|beat (?:the|my|your) (?:record|high score|traffic|heat|boss level|game)|beat (?:me|him|her|you) (?:at|in) (?:chess|cards|tennis|the race|a race)|smash(?:ed)? (?:it|the like button|that like)|(?:fire|fired) (?:up|someone|him|her) from|drop dead gorgeous|a killer\\b|the bomb" },
];
