/**
 * Process-wide instances, whatever the module graph: Next.js bundles its own copies of our modules
 * beside the server's (and dev reloads re-evaluate them), so module-level state would exist twice.
 * Every such instance lives here, on globalThis under a registry symbol.
 */
type Registry = Record<symbol, unknown>;
const slots = new Map<string, symbol>();
/** The registry key of `name` (Symbol.for is the same in every module copy; remembered: hot paths ask often). */
function slot(name: string): symbol {
  let key = slots.get(name);
  if (key === undefined) slots.set(name, (key = Symbol.for(`sieve.${name}`)));
  return key;
}

/** The instance called `name`, created on first use. */
export function processSingleton<T>(name: string, create: () => T): T {
  const store = globalThis as unknown as Registry;
  const key = slot(name);
  if (!(key in store)) store[key] = create();
  return store[key] as T;
}

/**
 * A getter of processSingleton(name, create) that remembers the instance after its first call:
 * for hot paths (a delivery asks for several per request), and only for instances that are never
 * forgotten (forgetSingleton would leave the getter holding the old one).
 */
export function singletonGetter<T>(name: string, create: () => T): () => T {
  let instance: T | undefined;
  return () => (instance ??= processSingleton(name, create));
}

/** The instance if it was created (without creating it). */
export function existingSingleton<T>(name: string): T | undefined {
  return (globalThis as unknown as Registry)[slot(name)] as T | undefined;
}

/** Forgets the instance; the next processSingleton() call creates a new one. */
export function forgetSingleton(name: string): void {
  delete (globalThis as unknown as Registry)[slot(name)];
}
