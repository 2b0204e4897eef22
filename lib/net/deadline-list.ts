/**
 * Deadlines of requests in flight with one timer for all of them, instead of a timer per request:
 * a Node timer is an async resource, and under Next.js's AsyncLocalStorage every one created copies
 * the current context (bench/events.ts profiles: ~1.5 µs per webhook request). Items are kept in
 * deadline order in an intrusive doubly linked list: adding one at the end (the common case: the
 * same timeout for every request) and removing one are O(1), and nothing is allocated per item.
 * The timer is armed for the first deadline; when it fires, the items due are told, and it is armed
 * again for the next one.
 */
export interface DeadlineItem {
  /** ms since the epoch. */
  readonly deadline: number;
  deadlinePrev: DeadlineItem | null;
  deadlineNext: DeadlineItem | null;
  deadlineList: DeadlineList | null;
  /** Called once the deadline has passed, after the item left the list. */
  deadlinePassed(): void;
}

export class DeadlineList {
  private head: DeadlineItem | null = null;
  private tail: DeadlineItem | null = null;
  private timer: NodeJS.Timeout | undefined;
  /** The deadline the timer is armed for (Infinity: none). */
  private armedFor = Infinity;

  add(item: DeadlineItem): void {
    if (item.deadlineList) item.deadlineList.remove(item);
    let before = this.tail;
    while (before && before.deadline > item.deadline) before = before.deadlinePrev;
    item.deadlinePrev = before;
    item.deadlineNext = before ? before.deadlineNext : this.head;
    if (item.deadlineNext) item.deadlineNext.deadlinePrev = item;
    else this.tail = item;
    if (before) before.deadlineNext = item;
    else this.head = item;
    item.deadlineList = this;
    if (item.deadline < this.armedFor) this.arm(item.deadline);
  }

  /** Takes the item out (its deadline no longer matters); the timer is left to fire and re-arm. */
  remove(item: DeadlineItem): void {
    if (item.deadlineList !== this) return;
    if (item.deadlinePrev) item.deadlinePrev.deadlineNext = item.deadlineNext;
    else this.head = item.deadlineNext;
    if (item.deadlineNext) item.deadlineNext.deadlinePrev = item.deadlinePrev;
    else this.tail = item.deadlinePrev;
    item.deadlinePrev = item.deadlineNext = null;
    item.deadlineList = null;
  }

  private arm(deadline: number): void {
    clearTimeout(this.timer);
    this.armedFor = deadline;
    // Unref'd: a request in flight holds the process by its socket, and an empty list must not.
    this.timer = setTimeout(() => this.fire(), Math.max(0, deadline - Date.now()));
    this.timer.unref();
  }

  private fire(): void {
    this.timer = undefined;
    this.armedFor = Infinity;
    const now = Date.now();
    while (this.head && this.head.deadline <= now) {
      const due = this.head;
      this.remove(due);
      due.deadlinePassed();
    }
    if (this.head) this.arm(this.head.deadline);
  }
}
