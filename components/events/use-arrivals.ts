"use client";

import { useEffect, useRef, useState } from "react";

/**
 * Which events arrived by polling since the list was first shown: ids above the newest event seen
 * before (older pages loaded with "Load more" are not news). `resetKey` (the filters) starts over.
 */
export function useArrivals(ids: readonly string[] | undefined, resetKey: string) {
  const seen = useRef<Set<string> | null>(null);
  const [arrived, setArrived] = useState<ReadonlySet<string>>(new Set());
  /** The latest arrival (a new object each time, so equal counts in a row still announce). */
  const [latest, setLatest] = useState<{ count: number } | null>(null);

  useEffect(() => {
    seen.current = null;
    setArrived(new Set());
    setLatest(null);
  }, [resetKey]);

  useEffect(() => {
    if (!ids) return;
    if (seen.current === null) {
      seen.current = new Set(ids);
      return;
    }
    const known = seen.current;
    const firstKnown = ids.findIndex((id) => known.has(id));
    const fresh = (firstKnown < 0 ? ids : ids.slice(0, firstKnown)).filter((id) => !known.has(id));
    for (const id of ids) known.add(id);
    if (fresh.length === 0) return;
    setArrived((current) => new Set([...current, ...fresh]));
    setLatest({ count: fresh.length });
  }, [ids]);

  return { arrived, latest };
}
