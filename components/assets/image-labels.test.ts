import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { ImageLabelsView } from "./image-labels";

const labels = {
  objects: [{ label: "person", confidence: 0.7, count: 3 }],
  colours: [{ name: "red", fraction: 0.4 }],
  faces: 1,
  description: null as string | null,
  model: "centernet-coco-384",
  labeledAt: 1,
};

describe("ImageLabelsView", () => {
  it("shows a describer's sentence above the detected labels, and no Description heading without one", () => {
    const described = renderToStaticMarkup(createElement(ImageLabelsView, { labels: { ...labels, description: "Three people under a red umbrella." }, type: "image" }));
    expect(described).toContain("<h3 class=\"font-medium\">Description</h3>");
    expect(described.indexOf("Three people under a red umbrella.")).toBeLessThan(described.indexOf("Objects"));
    expect(described).toContain("person ×3");

    const plain = renderToStaticMarkup(createElement(ImageLabelsView, { labels, type: "image" }));
    expect(plain).not.toContain("Description");
    expect(plain).toContain("person ×3");
  });
});
