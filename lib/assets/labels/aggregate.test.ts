import { describe, expect, it } from "vitest";
import { aggregateFrames, searchTerms } from "./aggregate";

describe("labels of an asset", () => {
  const frame1 = { objects: [{ label: "dog", confidence: 0.6, count: 1 }], colours: [{ name: "green", fraction: 0.5 }, { name: "blue", fraction: 0.06 }], faces: 0 };
  const frame2 = { objects: [{ label: "dog", confidence: 0.9, count: 2 }, { label: "person", confidence: 0.7, count: 1 }], colours: [{ name: "green", fraction: 0.3 }], faces: 1 };

  it("takes a video's best confidence, its largest count in one frame, the mean colour share and the most faces", () => {
    expect(aggregateFrames([frame1, frame2])).toEqual({
      objects: [
        { label: "dog", confidence: 0.9, count: 2 },
        { label: "person", confidence: 0.7, count: 1 },
      ],
      // blue: 0.03 on average, below the 5 % worth naming.
      colours: [{ name: "green", fraction: 0.4 }],
      faces: 1,
    });
  });

  it("gives search terms: objects by confidence, colours by share (full from a quarter), faces", () => {
    const labels = aggregateFrames([frame2]);
    expect(searchTerms(labels)).toEqual([
      { term: "object:dog", score: 0.9, count: 2 },
      { term: "object:person", score: 0.7, count: 1 },
      { term: "colour:green", score: 1, count: 1 },
      { term: "face", score: 1, count: 1 },
    ]);
    expect(searchTerms(aggregateFrames([frame1])).find((t) => t.term === "colour:blue")?.score).toBeCloseTo(0.24);
  });
});
