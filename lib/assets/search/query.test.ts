import { describe, expect, it } from "vitest";
import { objectFor, parseQuery, type Concept } from "./query";

const kinds = (q: string) => parseQuery(q).concepts.map((c) => (c.kind === "object" ? `object:${c.labels.join("|")}` : c.kind === "colour" ? `colour:${c.colour}` : c.kind === "faces" ? "faces" : `text:${c.word}`));
const first = (q: string) => parseQuery(q).concepts[0] as Concept;

describe("reading a search query", () => {
  it("finds objects, colours and other words, dropping the filler", () => {
    expect(kinds("a red car in front of a house")).toEqual(["colour:red", "object:car", "text:house"]);
    expect(kinds("Photo of a cup of coffee")).toEqual(["object:cup", "text:coffee"]);
  });

  it("maps synonyms, more specific and more general words onto the detector's labels (WordNet)", () => {
    expect(objectFor("puppy")).toEqual({ labels: ["dog"], relation: "hyponym" });
    expect(objectFor("automobile")).toEqual({ labels: ["car"], relation: "synonym" });
    expect(objectFor("people")).toEqual({ labels: ["person"], relation: "label" });
    expect(objectFor("woman")?.labels).toEqual(["person"]);
    expect(objectFor("sofa")?.labels).toEqual(["couch"]);
    expect(objectFor("aeroplane")?.labels).toEqual(["airplane"]);
    expect(objectFor("television")?.labels).toEqual(["tv"]);
    expect(objectFor("kittens")?.labels).toEqual(["cat"]);
    const animals = objectFor("animals");
    expect(animals?.relation).toBe("hypernym");
    expect(animals?.labels).toEqual(expect.arrayContaining(["dog", "cat", "horse", "bird"]));
    expect(animals?.labels).not.toContain("person");
    expect(objectFor("vehicle")?.labels).toEqual(expect.arrayContaining(["car", "bicycle", "motorcycle"]));
    expect(objectFor("fruit")?.labels).toEqual(expect.arrayContaining(["apple", "banana", "orange"]));
  });

  it("knows plural forms, irregular ones included", () => {
    expect(objectFor("puppies")?.labels).toEqual(["dog"]);
    expect(objectFor("knives")?.labels).toEqual(["knife"]);
    expect(objectFor("sandwiches")?.labels).toEqual(["sandwich"]);
    expect(objectFor("mice")?.labels).toEqual(["mouse"]);
    expect(objectFor("children")?.labels).toEqual(["person"]);
  });

  it("reads two-word labels before single words", () => {
    expect(kinds("hot dogs")).toEqual(["object:hot dog"]);
    expect(kinds("teddy bear on a bed")).toEqual(["object:teddy bear", "object:bed"]);
    expect(kinds("stop sign")).toEqual(["object:stop sign"]);
  });

  it("attaches numbers to the object they count", () => {
    expect(first("two dogs on a beach")).toMatchObject({ kind: "object", labels: ["dog"], count: { n: 2, atLeast: false } });
    expect(first("3 people")).toMatchObject({ labels: ["person"], count: { n: 3, atLeast: false } });
    expect(first("several teddy bears")).toMatchObject({ labels: ["teddy bear"], count: { n: 3, atLeast: true } });
    expect(first("dogs")).toMatchObject({ count: null });
  });

  it("reads orange as the fruit alone and as a colour before a noun", () => {
    expect(kinds("orange")).toEqual(["object:orange"]);
    expect(kinds("orange car")).toEqual(["colour:orange", "object:car"]);
    expect(kinds("grey cat")).toEqual(["colour:gray", "object:cat"]);
  });

  it("understands faces, quoted phrases and exclusions", () => {
    expect(kinds("selfie")).toEqual(["faces"]);
    const parsed = parseQuery('"summer sale" poster -draft');
    expect(parsed.excluded).toEqual(["draft"]);
    expect(parsed.concepts).toContainEqual({ kind: "text", word: "summer sale", phrase: true });
  });

  it("keeps file names and codes whole, and finds nothing in stop words", () => {
    expect(kinds("IMG_2041")).toEqual(["text:img_2041"]);
    expect(kinds("sunset-over-harbour.jpg")).toEqual(["text:sunset-over-harbour.jpg"]);
    expect(kinds("the")).toEqual([]);
    expect(kinds("!!!")).toEqual([]);
  });

  it("counts a concept once however often it is said", () => {
    expect(kinds("dog dogs puppy")).toEqual(["object:dog"]);
  });
});
