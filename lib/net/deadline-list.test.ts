import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { DeadlineList, type DeadlineItem } from "./deadline-list";

/** One timer for many deadlines: each item is told once its own deadline passed, in order, unless removed first. */
const passed: string[] = [];
function item(name: string, inMs: number): DeadlineItem {
  return {
    deadline: Date.now() + inMs,
    deadlinePrev: null,
    deadlineNext: null,
    deadlineList: null,
    deadlinePassed: () => void passed.push(name),
  };
}

beforeEach(() => {
  vi.useFakeTimers();
  passed.length = 0;
});

afterEach(() => {
  vi.useRealTimers();
});

describe("deadline list", () => {
  it("tells each item when its deadline passes, in deadline order whatever the order they came in", async () => {
    const list = new DeadlineList();
    list.add(item("b", 200));
    list.add(item("c", 300));
    list.add(item("a", 100)); // earlier than everything already there
    list.add(item("b2", 200));
    await vi.advanceTimersByTimeAsync(99);
    expect(passed).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(passed).toEqual(["a"]);
    await vi.advanceTimersByTimeAsync(100);
    expect(passed).toEqual(["a", "b", "b2"]);
    await vi.advanceTimersByTimeAsync(100);
    expect(passed).toEqual(["a", "b", "b2", "c"]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("never tells an item removed before its deadline, and still tells the ones after it on time", async () => {
    const list = new DeadlineList();
    const first = item("first", 100);
    const middle = item("middle", 150);
    list.add(first);
    list.add(middle);
    list.add(item("last", 200));
    list.remove(first); // answered in time: the timer armed for it finds nothing due and re-arms
    list.remove(middle);
    list.remove(middle); // twice is harmless
    await vi.advanceTimersByTimeAsync(199);
    expect(passed).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(passed).toEqual(["last"]);
  });

  it("keeps working after it ran empty", async () => {
    const list = new DeadlineList();
    const early = item("early", 50);
    list.add(early);
    list.remove(early);
    await vi.advanceTimersByTimeAsync(60);
    list.add(item("later", 500));
    await vi.advanceTimersByTimeAsync(500);
    expect(passed).toEqual(["later"]);
  });
});
