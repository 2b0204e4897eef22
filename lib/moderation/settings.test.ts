import { describe, expect, it } from "vitest";
import { parseAction, parseThresholds } from "./settings";

describe("admin set-moderation arguments", () => {
  it("parses category=score lists, and `default` resets", () => {
    expect(parseThresholds("violence=0.8, hate=0.5")).toEqual({ violence: 0.8, hate: 0.5 });
    expect(parseThresholds("criminal-activity=1,self-harm=0")).toEqual({ "criminal-activity": 1, "self-harm": 0 });
    expect(parseThresholds("default")).toBeNull();
  });

  it("refuses unknown categories, scores outside 0..1 and malformed pairs with a readable message", () => {
    expect(() => parseThresholds("gore=0.5")).toThrow(/Unknown category "gore"/);
    expect(() => parseThresholds("violence=1.5")).toThrow(/from 0 to 1/);
    expect(() => parseThresholds("violence=")).toThrow(/from 0 to 1/);
    expect(() => parseThresholds("violence")).toThrow(/category=0.8/);
    expect(() => parseThresholds("violence=0.5=1")).toThrow(/category=0.8/);
  });

  it("accepts the four actions only", () => {
    expect(parseAction("purge")).toBe("purge");
    expect(() => parseAction("delete")).toThrow(/ignore, alert, hide, purge/);
  });
});
