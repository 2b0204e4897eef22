import { describe, expect, it } from "vitest";
import { normalizeText } from "./normalize";

describe("normalizeText", () => {
  it.each([
    ["I'll K I L L you", "ill kill you"],
    ["k.i.l.l y0u", "kill you"],
    ["k-i-l-l", "kill"],
    ["k_i_l_l", "kill"],
    ["d i e", "die"],
    ["k\u200Bi\u200Cl\u200Dl", "kill"],
    ["\uFEFFhate", "hate"],
    ["ｋｉｌｌ", "kill"],
    ["Ι wіll kіll уоu", "i will kill you"], // Greek Iota, Cyrillic і/у/о
    ["ѕuісіdе", "suicide"],
    ["$uicide", "suicide"],
    ["k1ll", "kill"],
    ["h@te", "hate"],
    ["5h00t", "shoot"],
    ["h8 u", "hate you"],
    ["u r a loser", "you are a loser"],
    ["f*ck you", "fuck you"],
    ["kiiiiill", "kiill"],
    ["Café naïve", "cafe naive"],
    ["don’t", "dont"],
  ])("%j → %j", (input, expected) => {
    expect(normalizeText(input)).toBe(expected);
  });

  it("keeps numbers, years and units intact", () => {
    expect(normalizeText("In the 1940s, 3rd place, 5kg and 2024")).toBe("in the 1940s 3rd place 5kg and 2024");
  });

  it("keeps sentence punctuation and quotes as separate tokens", () => {
    expect(normalizeText(`He said 'I'll kill you'. Then left!`)).toBe('he said " ill kill you " . then left !');
  });

  it("does not glue ordinary short words", () => {
    expect(normalizeText("I am a cat")).toBe("i am a cat");
    expect(normalizeText("a b")).toBe("a b");
  });

  it("returns empty string for whitespace / invisible-only input", () => {
    expect(normalizeText("  \u200B\u200D ")).toBe("");
  });
});
