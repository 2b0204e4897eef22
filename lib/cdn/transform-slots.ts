import { ApiError } from "@/lib/core/errors";
import { processSingleton } from "@/lib/core/singleton";

/**
 * Cold transforms are the CDN's expensive work (a 24 MP JPEG costs ~150 ms of CPU and tens of MB):
 * at most RUNNING run at once per process (sharp's own thread pool has four threads), at most
 * WAITING more queue behind them, and beyond that a request gets 503 with Retry-After rather than
 * piling up memory. Cache hits never wait here.
 */
const RUNNING = 4;
const WAITING = 64;

interface Slots {
  running: number;
  waiting: (() => void)[];
}

function slots(): Slots {
  return processSingleton("cdn-transform-slots", () => ({ running: 0, waiting: [] }));
}

/** Whether a transform would start at once (nothing waiting, a slot free). */
export function transformSlotFree(): boolean {
  return slots().running < RUNNING;
}

export async function withTransformSlot<T>(work: () => Promise<T>): Promise<T> {
  const s = slots();
  if (s.running >= RUNNING) {
    if (s.waiting.length >= WAITING) {
      throw new ApiError("service/unavailable", "Too many images are being transformed right now; retry in a second.", { headers: { "Retry-After": "1" } });
    }
    await new Promise<void>((resolve) => s.waiting.push(resolve));
  } else {
    s.running++;
  }
  try {
    return await work();
  } finally {
    // Hand the slot straight to the next waiter, or free it.
    const next = s.waiting.shift();
    if (next) next();
    else s.running--;
  }
}
