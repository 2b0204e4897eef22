import { describe, expect, it } from "vitest";
import { TEXT_CATEGORIES, TEXT_LEXICON_VERSION, TEXT_RULES, classifyText, type TextCategory } from "./classify";
import { CONTEXT_RULES, BENIGN_PHRASES, compilePattern } from "./lexicon";

type Case = [text: string, category: TextCategory, qualifier: string];

const HIGH = 0.6;
const LOW = 0.2;

const score = (t: string, c: TextCategory) => classifyText(t).categories[c].score;
const qual = (t: string, c: TextCategory, q: string) => classifyText(t).categories[c].qualifiers[q] ?? 0;
const maxScore = (t: string) => Math.max(...TEXT_CATEGORIES.map((c) => score(t, c)));

const POSITIVE: Case[] = [
  // violence
  ["I will kill you", "violence", "violent-threat"],
  ["im gonna fucking stab you tomorrow", "violence", "violent-threat"],
  ["We are going to burn your family alive", "violence", "violent-threat"],
  ["I'm going to shoot my boss on monday", "violence", "violent-threat"],
  ["you're dead meat", "violence", "violent-threat"],
  ["planning to shoot up the school, don't come to school tomorrow", "violence", "violent-preparation"],
  ["bought a rifle and ammo to use on them", "violence", "violent-preparation"],
  ["someone should shoot him", "violence", "violent-encouragement"],
  ["let's go beat up those guys, they deserve to die", "violence", "violent-encouragement"],
  ["the body was decapitated and dismembered, blood everywhere", "violence", "graphic"],
  ["he beat her to death", "violence", "physical-attack"],
  // self-harm
  ["I want to end it all", "self-harm", "self-harm-thoughts"],
  ["i dont want to live anymore", "self-harm", "self-harm-thoughts"],
  ["everyone would be better off without me", "self-harm", "self-harm-thoughts"],
  ["I've been cutting myself again", "self-harm", "self-harm-act"],
  ["i took all my pills last night", "self-harm", "self-harm-act"],
  ["I wrote my suicide note, this is my goodbye", "self-harm", "self-harm-preparation"],
  ["what is the most painless way to die", "self-harm", "self-harm-methods"],
  ["how many tylenol does it take to die", "self-harm", "self-harm-methods"],
  ["kys", "self-harm", "self-harm-encouragement"],
  ["just kill yourself, nobody would miss you", "self-harm", "self-harm-encouragement"],
  // harassment
  ["you are a worthless piece of shit", "harassment", "personal-abuse"],
  ["ur such a pathetic loser", "harassment", "personal-abuse"],
  ["I know where you live", "harassment", "targeted-intimidation"],
  ["I will find you. watch your back", "harassment", "targeted-intimidation"],
  ["i'll leak your nudes", "harassment", "targeted-intimidation"],
  ["you should die", "harassment", "harassment-threat"],
  ["I'm gonna slap you", "harassment", "harassment-threat"],
  ["send me nudes baby", "harassment", "sexual-harassment"],
  ["everyone go report her account and make her life hell", "harassment", "harassment-encouragement"],
  // hate
  ["immigrants are vermin", "hate", "dehumanization"],
  ["those muslims are nothing but animals", "hate", "dehumanization"],
  ["gay people are not human", "hate", "dehumanization"],
  ["women are inferior and too emotional to lead", "hate", "identity-inferiority"],
  ["black people are genetically inferior", "hate", "identity-inferiority"],
  ["deport all mexicans", "hate", "discriminatory-exclusion"],
  ["refugees are not welcome here, they should go back to their country", "hate", "discriminatory-exclusion"],
  ["jews should be exterminated", "hate", "hate-threat"],
  ["death to all immigrants", "hate", "hate-threat"],
  ["i hate all asians", "hate", "identity-abuse"],
  // sexual
  ["sending nude pics tonight, topless", "sexual", "nudity"],
  ["we had sex all night, hot threesome video", "sexual", "sexual-activity"],
  ["suck my dick", "sexual", "explicit-sexual-language"],
  ["dm me for nudes, selling my content", "sexual", "sexual-solicitation"],
  ["looking for a hookup tonight, wanna have sex", "sexual", "sexual-solicitation"],
  // criminal
  ["how to make meth at home", "criminal-activity", "criminal-request"],
  ["where can I buy stolen cards", "criminal-activity", "criminal-request"],
  ["best way to launder money", "criminal-activity", "criminal-request"],
  ["how do I hack into my ex's instagram", "criminal-activity", "criminal-request"],
  ["first mix the pseudoephedrine with red phosphorus then heat", "criminal-activity", "criminal-instructions"],
  ["selling fullz and cvv, dm me", "criminal-activity", "criminal-promotion"],
  ["we just robbed a store lol, look what i stole", "criminal-activity", "criminal-demonstration"],
  ["planning to rob the bank, need a getaway driver", "criminal-activity", "criminal-preparation"],
  ["where to buy heroin near me", "criminal-activity", "criminal-request"],
  ["go back to your country", "hate", "discriminatory-exclusion"],
  ["my dad hits me every night", "violence", "physical-attack"],
  ["I feel like dying", "self-harm", "self-harm-thoughts"],
  ["i'll break your legs", "violence", "violent-threat"],
  ["you're so ugly nobody will ever love you", "harassment", "personal-abuse"],
];

describe("classifyText: positives", () => {
  it.each(POSITIVE)("%j → %s/%s", (text, category, qualifier) => {
    const r = classifyText(text);
    expect(r.categories[category].score).toBeGreaterThanOrEqual(HIGH);
    expect(r.categories[category].qualifiers[qualifier] ?? 0).toBeGreaterThanOrEqual(0.5);
    expect(r.notes.rulesFired.some((f) => f.category === category && f.qualifier === qualifier)).toBe(true);
  });
});

const EVASIONS: Case[] = [
  ["I w1ll k1ll y0u", "violence", "violent-threat"],
  ["i will k i l l you", "violence", "violent-threat"],
  ["i will k.i.l.l you", "violence", "violent-threat"],
  ["i wіll kіll уоu", "violence", "violent-threat"], // Cyrillic homoglyphs
  ["i will kiiiiill youuuu", "violence", "violent-threat"],
  ["i will k\u200Bill you", "violence", "violent-threat"],
  ["k y s", "self-harm", "self-harm-encouragement"],
  ["k!ll y0urself", "self-harm", "self-harm-encouragement"],
  ["1mm1gr4nt5 are v3rm1n", "hate", "dehumanization"],
  ["h0w t0 m@ke m3th", "criminal-activity", "criminal-request"],
  ["ｙｏｕ ａｒｅ ａ ｌｏｓｅｒ", "harassment", "personal-abuse"],
  ["u r p a t h e t i c", "harassment", "personal-abuse"],
  ["$u¢k my d1ck", "sexual", "explicit-sexual-language"],
];

describe("classifyText: evasions", () => {
  it.each(EVASIONS)("%j → %s/%s", (text, category, qualifier) => {
    expect(score(text, category)).toBeGreaterThanOrEqual(HIGH);
    expect(qual(text, category, qualifier)).toBeGreaterThanOrEqual(0.5);
  });
});

const BENIGN = [
  "",
  "   ",
  "Hello, how are you today? The weather is lovely.",
  "this movie killed it",
  "I'm dying of laughter",
  "lol im dead",
  "kill the process with kill -9",
  "let's shoot a photo at the beach",
  "we have a photo shoot tomorrow",
  "the hate u give is a good book",
  "breast cancer screening saves lives",
  "cut the onions and the carrots",
  "i bombed that exam",
  "this deal is to die for",
  "my phone battery is dying",
  "she beat the record at the race",
  "you are a genius, thanks so much",
  "my kids love the new puppy",
  "the chinese food was great",
  "women's football final tonight",
  "I hate mondays",
  "great shot! nice photo",
  "Please review the attached invoice before Friday.",
  "sex education in schools",
  "I was dying to see that film",
  "how to make bread at home",
  "where can I buy cheap flights",
  "your stupid phone is broken",
  "Muslims are praying during Ramadan",
  "immigrants are important to the economy",
  "women are amazing leaders",
  "let's kill this presentation",
  "how to get rid of rats",
  "I'm going to the gun range with my dad",
  "The police shot the suspect, officials said",
  "My grandmother died last year and I miss her",
];

describe("classifyText: benign look-alikes stay low", () => {
  it.each(BENIGN)("%j", (text) => {
    expect(maxScore(text)).toBeLessThan(LOW);
  });
});

describe("classifyText: threats without a subject (chat style, or a lost OCR 'I')", () => {
  it.each(["will kill you tomorrow", "Gonna stab you.", "ok. going to find you and kill you"])("%j is a threat", (text) => {
    expect(score(text, "violence")).toBeGreaterThanOrEqual(0.6);
    expect(classifyText(text).notes.rulesFired.map((r) => r.id)).toContain("violence.threat.5");
  });
  it.each(["Smoking will kill you", "This heat is going to kill you slowly"])("%j is not", (text) => {
    expect(score(text, "violence")).toBeLessThan(0.35);
  });
});

describe("classifyText: context modifiers", () => {
  it("negation lowers but does not erase", () => {
    const plain = score("I will kill you", "violence");
    for (const t of ["I would never kill you", "I will never kill you", "i am not going to stab anyone"]) {
      expect(score(t, "violence")).toBeLessThan(0.35);
      expect(classifyText(t).notes.contexts).toContain("negation");
    }
    expect(score("I'm not going to hurt you", "violence")).toBeLessThan(0.35);
    expect(score("I will never kill you", "violence")).toBeGreaterThan(0);
    expect(score("I will never kill you", "violence")).toBeLessThan(plain);
  });

  it("quotation / reporting lowers threats and reports documentary", () => {
    const t = `He said "I'll kill you" before leaving`;
    expect(score(t, "violence")).toBeLessThan(score("I'll kill you", "violence"));
    expect(score(t, "violence")).toBeGreaterThan(0.1);
    expect(classifyText(t).notes.contexts).toContain("quotation");
    expect(qual(t, "violence", "documentary")).toBeGreaterThan(0);
  });

  it("news phrasing is reported as documentary and damped", () => {
    const t = "Police said the man was arrested for selling meth and stolen credit cards.";
    const r = classifyText(t);
    expect(r.categories["criminal-activity"].qualifiers.documentary).toBeGreaterThan(0.5);
    expect(r.categories["criminal-activity"].score).toBeLessThan(0.6);
    expect(r.categories["criminal-activity"].score).toBeGreaterThan(0);
  });

  it("historical context is reported and damps hate/violence", () => {
    const t = "During World War II the Nazis claimed jews are vermin, a history lesson on propaganda.";
    const r = classifyText(t);
    expect(r.categories.hate.qualifiers.historical).toBeGreaterThan(0.5);
    expect(r.categories.hate.score).toBeLessThan(score("jews are vermin", "hate"));
  });

  it("fiction is reported and damps violence", () => {
    const t = "In the novel, the villain says: I will kill you all.";
    const r = classifyText(t);
    expect(r.categories.violence.qualifiers.fictional).toBeGreaterThan(0.5);
    expect(r.categories.violence.score).toBeLessThan(score("I will kill you all", "violence"));
    expect(qual("my character stabbed him in chapter 3", "violence", "fictional")).toBeGreaterThan(0.5);
  });

  it("support/prevention strongly damps self-harm and is reported", () => {
    for (const t of [
      "If you are thinking about suicide, call 988. You are not alone.",
      "How to help someone who self-harms: learn the warning signs",
      "Suicide prevention hotline numbers by country",
    ]) {
      const r = classifyText(t);
      expect(r.categories["self-harm"].score).toBeLessThan(0.2);
      expect(r.categories["self-harm"].qualifiers["support-prevention"]).toBeGreaterThan(0.5);
    }
  });

  it("support context does not erase a first-person crisis statement", () => {
    const t = "I want to kill myself tonight. I called the hotline but nobody answered.";
    expect(score(t, "self-harm")).toBeGreaterThan(0.2);
  });

  it("sexual content involving minors is not damped by fiction", () => {
    const t = "in my story there is child porn";
    expect(score(t, "sexual")).toBeGreaterThanOrEqual(0.9);
    expect(score(t, "criminal-activity")).toBeGreaterThanOrEqual(0.85);
  });
});

describe("classifyText: output shape and invariants", () => {
  it("has exactly the six categories with scores in 0..1", () => {
    const r = classifyText("I will kill you and steal your cards, you worthless slut");
    expect(Object.keys(r.categories).sort()).toEqual([...TEXT_CATEGORIES].sort());
    for (const c of TEXT_CATEGORIES) {
      expect(r.categories[c].score).toBeGreaterThanOrEqual(0);
      expect(r.categories[c].score).toBeLessThanOrEqual(1);
      for (const v of Object.values(r.categories[c].qualifiers)) expect(v).toBeGreaterThanOrEqual(0);
    }
    expect(r.notes.version).toBe(TEXT_LEXICON_VERSION);
    expect(r.notes.rulesFired.length).toBeGreaterThan(0);
  });

  it("is deterministic", () => {
    const t = "im gonna find you and hurt you, kys";
    expect(classifyText(t)).toEqual(classifyText(t));
  });

  it("more evidence never lowers a score (saturating combination)", () => {
    expect(score("I will kill you. you're dead meat", "violence")).toBeGreaterThanOrEqual(score("I will kill you", "violence"));
    expect(score("kill kill kill kill kill kill kill kill", "violence")).toBeLessThan(0.35);
  });

  it("rule ids are unique and every category has rules", () => {
    const ids = TEXT_RULES.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const c of TEXT_CATEGORIES) expect(TEXT_RULES.some((r) => r.hits.some((h) => h.category === c))).toBe(true);
  });

  it("all patterns compile", () => {
    for (const p of [...TEXT_RULES, ...CONTEXT_RULES, ...BENIGN_PHRASES]) expect(() => compilePattern(p.pattern)).not.toThrow();
  });

  it("handles long and odd input", () => {
    expect(() => classifyText("a".repeat(50_000))).not.toThrow();
    expect(maxScore("🙂🙂🙂 ... !!! ???")).toBe(0);
  });

});
