import { describe, expect, it } from "vitest";
import { colourFractions, colourName, rgbToHsv, type ColourName } from "./colours";

const hex = (h: string): [number, number, number] => {
  const v = parseInt(h.slice(1), 16);
  return [(v >> 16) & 255, (v >> 8) & 255, v & 255];
};

describe("colourName", () => {
  // CSS named colours as most people would name them.
  const cases: Record<ColourName, string[]> = {
    red: ["#ff0000", "#dc143c", "#b22222", "#8b0000", "#ff6347"],
    orange: ["#ffa500", "#ff8c00", "#ff7f50", "#d2691e"],
    yellow: ["#ffff00", "#ffd700", "#f0e68c"],
    green: ["#008000", "#00ff00", "#006400", "#228b22", "#9acd32", "#2e8b57"],
    blue: ["#0000ff", "#000080", "#4169e1", "#87ceeb", "#4682b4", "#add8e6", "#00ffff"],
    purple: ["#800080", "#4b0082", "#9400d3", "#9370db"],
    pink: ["#ffc0cb", "#ff69b4", "#ff1493", "#ee82ee", "#da70d6"],
    brown: ["#8b4513", "#a0522d", "#d2b48c"],
    black: ["#000000", "#101010", "#1a0a0a"],
    white: ["#ffffff", "#fffff0", "#f5f5dc", "#e6e6fa"],
    gray: ["#808080", "#c0c0c0", "#696969", "#d3d3d3", "#2f4f4f"],
  };
  for (const [name, colours] of Object.entries(cases)) {
    it(`names ${colours.join(", ")} ${name}`, () => {
      expect(colours.map((c) => colourName(...hex(c)))).toEqual(colours.map(() => name));
    });
  }

  it("converts to HSV", () => {
    expect(rgbToHsv(255, 0, 0)).toEqual({ h: 0, s: 1, v: 1 });
    expect(rgbToHsv(0, 0, 255)).toEqual({ h: 240, s: 1, v: 1 });
    expect(rgbToHsv(255, 0, 128).h).toBeCloseTo(329.9, 1);
    expect(rgbToHsv(0, 0, 0)).toEqual({ h: 0, s: 0, v: 0 });
  });
});

describe("colourFractions", () => {
  const pixels = (...runs: [string, number][]) => Uint8Array.from(runs.flatMap(([c, n]) => Array.from({ length: n }, () => hex(c)).flat()));

  it("counts shares, largest first, and drops those under 5 %", () => {
    const rgb = pixels(["#ff0000", 60], ["#0000ff", 36], ["#ffffff", 4]);
    expect(colourFractions(rgb, 3)).toEqual([
      { name: "red", fraction: 0.6 },
      { name: "blue", fraction: 0.36 },
    ]);
    expect(colourFractions(rgb, 3, 0)).toContainEqual({ name: "white", fraction: 0.04 });
  });

  it("leaves out pixels less than half opaque", () => {
    const rgba = Uint8Array.from([255, 0, 0, 255, 0, 255, 0, 0, 0, 255, 0, 127, 255, 0, 0, 200]);
    expect(colourFractions(rgba, 4)).toEqual([{ name: "red", fraction: 1 }]);
    expect(colourFractions(Uint8Array.from([0, 0, 0, 0]), 4)).toEqual([]);
    expect(colourFractions(new Uint8Array(0), 3)).toEqual([]);
  });
});
