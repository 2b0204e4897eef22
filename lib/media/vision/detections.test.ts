import { describe, expect, it } from "vitest";
import { COCO_LABELS } from "./coco-labels";
import { countFaces, intersectionOverUnion, summariseObjects, suppress, type Box } from "./detections";

const PERSON = COCO_LABELS.indexOf("person");
const CAT = COCO_LABELS.indexOf("cat");
const row = (box: Box, score: number, cls: number) => [...box, score, cls];

describe("detections", () => {
  it("maps class indices to the COCO labels CenterNet was trained on", () => {
    expect(COCO_LABELS).toHaveLength(80);
    expect([PERSON, COCO_LABELS.indexOf("car"), CAT, COCO_LABELS.indexOf("dog"), COCO_LABELS.indexOf("toothbrush")]).toEqual([0, 2, 15, 16, 79]);
  });

  it("measures overlap as intersection over union", () => {
    expect(intersectionOverUnion([0, 0, 10, 10], [0, 0, 10, 10])).toBe(1);
    expect(intersectionOverUnion([0, 0, 10, 10], [5, 0, 15, 10])).toBeCloseTo(1 / 3);
    expect(intersectionOverUnion([0, 0, 10, 10], [10, 10, 20, 20])).toBe(0);
  });

  it("keeps the best of overlapping boxes", () => {
    const kept = suppress(
      [
        { box: [0, 0, 10, 10] as Box, score: 0.5 },
        { box: [1, 1, 11, 11] as Box, score: 0.9 },
        { box: [50, 50, 60, 60] as Box, score: 0.4 },
      ],
      0.4,
    );
    expect(kept.map((k) => k.score)).toEqual([0.9, 0.4]);
  });

  it("counts each label's separate detections above the threshold, most confident label first", () => {
    const rows = [
      ...row([0, 0, 100, 200], 0.62, PERSON),
      ...row([5, 5, 100, 200], 0.41, PERSON), // the same person again
      ...row([200, 0, 300, 200], 0.35, PERSON),
      ...row([200, 0, 300, 200], 0.7, CAT), // another label may overlap
      ...row([400, 0, 500, 200], 0.29, PERSON), // under 0.3
      ...row([0, 0, 1, 1], 0.9, 80), // no such class
      ...row([0, 0, 1, 1], 0.9, Number.NaN),
    ];
    expect(summariseObjects(rows)).toEqual([
      { label: "cat", confidence: 0.7, count: 1 },
      { label: "person", confidence: 0.62, count: 2 },
    ]);
    expect(summariseObjects(rows, 0.2)[1]).toEqual({ label: "person", confidence: 0.62, count: 3 });
    expect(summariseObjects([])).toEqual([]);
  });

  it("counts faces above the threshold once each", () => {
    const faces = [10, 10, 40, 40, 0.9, 12, 11, 41, 41, 0.8, 100, 10, 130, 40, 0.75, 200, 10, 230, 40, 0.5];
    expect(countFaces(faces)).toBe(2);
    expect(countFaces(faces, 0.4)).toBe(3);
    expect(countFaces([])).toBe(0);
  });
});
