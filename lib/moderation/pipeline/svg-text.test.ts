import { describe, expect, it } from "vitest";
import { svgText } from "./svg-text";

describe("svgText", () => {
  it("reads the text an SVG draws, without markup, comments or the DOCTYPE", () => {
    const svg = `<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY x "y">]><svg xmlns="http://www.w3.org/2000/svg"><!-- hidden note -->
      <title>A &amp; B</title><text x="0" y="20">I will hurt you</text><text>&#x263A;</text><style>.a{fill:red}</style></svg>`;
    expect(svgText(Buffer.from(svg))).toBe("A & B I will hurt you ☺");
  });

  it("is null for an SVG without text", () => {
    expect(svgText(Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg"><rect width="10" height="10"/></svg>`))).toBeNull();
  });
});
