import { describe, expect, it } from "vitest";
import { compileExpression, ExpressionError, expressionKey } from "./expressions";

// The CEL subset Inngest trigger `if`, waitForEvent `if`, and key expressions use.
const event = {
  name: "shop/order.placed",
  data: {
    id: "o-1",
    total: 42,
    customer: { id: "c-7", tier: "gold", tags: ["vip", "eu"] },
    items: [{ sku: "a" }, { sku: "b" }],
    "odd-key": "yes",
    flag: true,
    nothing: null,
  },
};
const evalWith = (source: string, vars: { event?: unknown; async?: unknown } = { event }) => compileExpression(source)(vars);

describe("paths", () => {
  it("reads dotted and indexed paths on event and async", () => {
    expect(evalWith("event.data.id")).toBe("o-1");
    expect(evalWith("event.data.customer.tier")).toBe("gold");
    expect(evalWith("event.data['odd-key']")).toBe("yes");
    expect(evalWith('event.data["customer"]["id"]')).toBe("c-7");
    expect(evalWith("event.data.items[1].sku")).toBe("b");
    expect(evalWith("async.data.id", { event, async: { data: { id: "x" } } })).toBe("x");
  });

  it("evaluates missing fields (and a missing root) as null instead of throwing", () => {
    expect(evalWith("event.data.missing")).toBeNull();
    expect(evalWith("event.data.missing.deeper")).toBeNull();
    expect(evalWith("event.data.nothing == null")).toBe(true);
    expect(evalWith("async.data.id", { event })).toBeNull();
  });
});

describe("operators", () => {
  it("compares with == and != (deep for objects and lists)", () => {
    expect(evalWith("event.data.id == 'o-1'")).toBe(true);
    expect(evalWith("event.data.id != 'o-1'")).toBe(false);
    expect(evalWith("event.data.total == 42")).toBe(true);
    expect(evalWith("event.data.total == '42'")).toBe(false); // no coercion
    expect(evalWith("event.data.flag == true")).toBe(true);
    expect(evalWith("event.data.customer.tags == ['vip', 'eu']")).toBe(true);
    expect(evalWith("event.data.customer.tags == ['eu', 'vip']")).toBe(false);
  });

  it("orders numbers and strings with < <= > >=, and never across types", () => {
    expect(evalWith("event.data.total > 40")).toBe(true);
    expect(evalWith("event.data.total >= 42")).toBe(true);
    expect(evalWith("event.data.total < 42")).toBe(false);
    expect(evalWith("event.data.total <= 41.5")).toBe(false);
    expect(evalWith("event.data.customer.tier < 'silver'")).toBe(true);
    expect(evalWith("event.data.total > '1'")).toBe(false);
    expect(evalWith("event.data.missing < 1")).toBe(false);
  });

  it("combines with && || ! and respects precedence and parentheses", () => {
    expect(evalWith("event.data.total > 40 && event.data.customer.tier == 'gold'")).toBe(true);
    expect(evalWith("event.data.total > 50 && event.data.customer.tier == 'gold'")).toBe(false);
    expect(evalWith("event.data.total > 50 || event.data.customer.tier == 'gold'")).toBe(true);
    // && binds tighter than ||
    expect(evalWith("true || false && false")).toBe(true);
    expect(evalWith("(true || false) && false")).toBe(false);
    expect(evalWith("!event.data.flag")).toBe(false);
    expect(evalWith("!(event.data.total > 50)")).toBe(true);
    expect(evalWith("!event.data.missing")).toBe(true);
  });

  it("tests list membership with in", () => {
    expect(evalWith("event.data.customer.tier in ['gold', 'platinum']")).toBe(true);
    expect(evalWith("event.data.customer.tier in ['silver']")).toBe(false);
    expect(evalWith("'vip' in event.data.customer.tags")).toBe(true);
    expect(evalWith("'x' in event.data.customer.tags")).toBe(false);
    expect(evalWith("'x' in event.data.id")).toBe(false); // not a list
    expect(evalWith("event.data.total in []")).toBe(false);
  });

  it("adds numbers and concatenates strings (key expressions)", () => {
    expect(evalWith("event.data.total + 1 == 43")).toBe(true);
    expect(evalWith("event.data.customer.id + '-' + event.data.id")).toBe("c-7-o-1");
    expect(evalWith("1 - 2 - 3")).toBe(-4); // left-associative
    expect(evalWith("-event.data.total")).toBe(-42);
    expect(evalWith("event.data.id + 1")).toBeNull();
  });

  it("matches waitForEvent expressions between the run's event and the incoming one", () => {
    const match = compileExpression("async.data.id == event.data.id");
    expect(match({ event, async: { name: "x", data: { id: "o-1" } } })).toBe(true);
    expect(match({ event, async: { name: "x", data: { id: "o-2" } } })).toBe(false);
    expect(match({ event, async: { name: "x", data: {} } })).toBe(false);
  });
});

describe("literals", () => {
  it("reads strings in both quote styles, with escapes", () => {
    expect(evalWith(`'single'`)).toBe("single");
    expect(evalWith(`"double"`)).toBe("double");
    expect(evalWith(`"it's"`)).toBe("it's");
    expect(evalWith(`'say "hi"'`)).toBe('say "hi"');
    expect(evalWith(String.raw`'a\'b'`)).toBe("a'b");
    expect(evalWith(String.raw`"tab\there"`)).toBe("tab\there");
    expect(evalWith(`"&& || == in"`)).toBe("&& || == in");
  });

  it("reads numbers, booleans, null and lists", () => {
    expect(evalWith("12.5")).toBe(12.5);
    expect(evalWith("true")).toBe(true);
    expect(evalWith("false")).toBe(false);
    expect(evalWith("null")).toBeNull();
    expect(evalWith("[1, 'a', [true]]")).toEqual([1, "a", [true]]);
  });
});

describe("unsupported syntax is refused at compile time", () => {
  const refused: [string, RegExp][] = [
    ["size(event.data.items) > 1", /unsupported identifier size/],
    ["event.data.id.startsWith('o')", /function calls are not supported/],
    ["has(event.data.id)", /unsupported identifier has/],
    ["user.id == 1", /unsupported identifier user/],
    ["vars.x", /unsupported identifier vars/],
    ["event.data.total ? 1 : 2", /unsupported character "\?"/],
    ["event.data.total = 1", /unsupported character "="/],
    ["event.data.total * 2", /unsupported character "\*"/],
    ["{'a': 1}", /unsupported character "\{"/],
    ["'unterminated", /unterminated string/],
    ["event.data.", /expected a field name/],
    ["event.data[event.data.id]", /expected a literal index/],
    ["(event.data.id == 'x'", /expected \)/],
    ["event.data.id event.data.total", /unexpected event/],
    ["", /unexpected end/],
    ["event.data.id ==", /unexpected end/],
  ];
  it.each(refused)("%s", (source, message) => {
    expect(() => compileExpression(source)).toThrow(ExpressionError);
    expect(() => compileExpression(source)).toThrow(message);
  });

  it("names the expression in the error", () => {
    expect(() => compileExpression("size(x)")).toThrow(/"size\(x\)"/);
  });
});

describe("expressionKey", () => {
  it("uses strings as they are and JSON for anything else", () => {
    expect(expressionKey("user-1")).toBe("user-1");
    expect(expressionKey(7)).toBe("7");
    expect(expressionKey({ a: 1 })).toBe('{"a":1}');
    expect(expressionKey(undefined)).toBe("null");
    expect(expressionKey(null)).toBe("null");
  });
});
