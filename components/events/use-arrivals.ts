"use client";

import { useEffect, useRef, useState } from "react";

/**
 * The ids (newest first) above every id seen before: new arrivals. Unseen ids below a seen one are
 * older pages ("Load more"), not news; with none seen, all of them are new (more than a page came).
 */
export function freshIds(ids: readonly string[], seen: ReadonlySet<string>): string[] {
  const firstSeen = ids.findIndex((id) => seen.has(id));
  return firstSeen < 0 ? [...ids] : ids.slice(0, firstSeen);
}

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
    const fresh = freshIds(ids, seen.current);
    for (const id of ids) seen.current.add(id);
    if (fresh.length === 0) return;
    setArrived((current) => new Set([...current, ...fresh]));
    setLatest({ count: fresh.length });
  }, [ids]);

  return { arrived, latest };
}
