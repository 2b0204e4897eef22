"use client";

import { useSyncExternalStore } from "react";

/*
 * "Reviewed this session" lives in sessionStorage: the count belongs to this browser tab, survives
 * reloads and navigation between queue and detail pages, and starts again in a new tab.
 */
const COUNT_KEY = "sieve:reviewed-this-session";
const DISMISSED_KEY = "sieve:break-dismissed-at";

const listeners = new Set<() => void>();
/** Fallback when storage is disabled (some privacy modes): the count then lasts until a reload. */
const memory = new Map<string, number>();

function read(key: string): number {
  let value: number;
  try {
    value = Number(window.sessionStorage.getItem(key));
  } catch {
    value = memory.get(key) ?? 0;
  }
  return Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}

function write(key: string, value: number): void {
  memory.set(key, value);
  try {
    window.sessionStorage.setItem(key, String(value));
  } catch {
    // Storage refused: the in-memory value above serves this page.
  }
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Adds finished decisions (each approve/reject that the server accepted) to the tab's count. */
export function recordReviewed(decisions: number): void {
  if (decisions > 0) write(COUNT_KEY, read(COUNT_KEY) + decisions);
}

export function useReviewedCount(): number {
  return useSyncExternalStore(subscribe, () => read(COUNT_KEY), () => 0);
}

/** The count at which the reviewer last dismissed the break reminder. */
export function useBreakDismissedAt(): number {
  return useSyncExternalStore(subscribe, () => read(DISMISSED_KEY), () => 0);
}

export function dismissBreakReminder(atCount: number): void {
  write(DISMISSED_KEY, atCount);
}
