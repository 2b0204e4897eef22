/**
 * A Map used as a least-recently-used cache (a Map iterates in insertion order, so re-inserting an
 * entry on use keeps the least recently used first).
 */

/** The entry for `key`, marked as just used. */
export function lruGet<V>(cache: Map<string, V>, key: string): V | undefined {
  const value = cache.get(key);
  if (value !== undefined) {
    cache.delete(key);
    cache.set(key, value);
  }
  return value;
}

/** Adds an entry; beyond `max` entries the least recently used go, each handed to `evict`. */
export function lruAdd<V>(cache: Map<string, V>, key: string, value: V, max: number, evict: (value: V) => void): void {
  cache.set(key, value);
  while (cache.size > max) {
    const [oldestKey, oldest] = cache.entries().next().value as [string, V];
    cache.delete(oldestKey);
    evict(oldest);
  }
}
