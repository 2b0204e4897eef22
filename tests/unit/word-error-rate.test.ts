import { describe, expect, it } from "vitest";
import { corpusWordErrorRate, normaliseWords, wordErrors } from "@/bench/word-error-rate";

describe("word error rate", () => {
  it("normalises case, punctuation and apostrophes before comparing", () => {
    expect(normaliseWords("The meeting's at ten o'clock, OK?  Right-now!")).toEqual(["the", "meetings", "at", "ten", "oclock", "ok", "right", "now"]);
    expect(wordErrors("I will kill you tomorrow.", "i will KILL you, tomorrow")).toMatchObject({ errors: 0, referenceWords: 5, rate: 0 });
  });

  it("counts substitutions, deletions and insertions by the minimum edit", () => {
    expect(wordErrors("i will kill you tomorrow", "kill you tomorrow")).toMatchObject({ deletions: 2, substitutions: 0, insertions: 0, rate: 0.4 });
    expect(wordErrors("see you next week", "see you text week")).toMatchObject({ substitutions: 1, deletions: 0, insertions: 0, rate: 0.25 });
    expect(wordErrors("turn left", "turn left left at once")).toMatchObject({ insertions: 3, errors: 3, rate: 1.5 });
    // One substitution is cheaper than a deletion plus an insertion.
    expect(wordErrors("a b c", "a x c")).toMatchObject({ substitutions: 1, deletions: 0, insertions: 0, errors: 1 });
    // Classic example: "kitten sitting" distances carried over to words.
    expect(wordErrors("k i t t e n", "s i t t i n g")).toMatchObject({ errors: 3, substitutions: 2, insertions: 1, deletions: 0 });
  });

  it("handles empty sides", () => {
    expect(wordErrors("", "")).toMatchObject({ errors: 0, rate: 0, referenceWords: 0 });
    expect(wordErrors("", "noise")).toMatchObject({ insertions: 1, rate: 1 });
    expect(wordErrors("hello there", "")).toMatchObject({ deletions: 2, rate: 1 });
  });

  it("pools a corpus by words, not by sentences", () => {
    const results = [wordErrors("a b c d e f g h i j", "a b c d e f g h i j"), wordErrors("hello", "yellow")];
    expect(corpusWordErrorRate(results)).toBeCloseTo(1 / 11, 10);
    expect(corpusWordErrorRate([])).toBe(0);
  });
});
