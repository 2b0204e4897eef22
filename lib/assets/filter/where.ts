/** Small helpers for building Prisma asset conditions. */
import type { Prisma } from "@/lib/db/generated/client";

export type Where = Prisma.AssetWhereInput;
export type Column = keyof Where;

/** Matches no rows: Prisma renders an empty OR as FALSE (whereas `NOT: {}` is TRUE). */
export const matchNone = (): Where => ({ OR: [] });

/** `{ [column]: filter }`; the one cast in the translation — callers pass filters valid for the column. */
export function on(column: Column, filter: unknown): Where {
  return { [column]: filter } as Where;
}

export function combine(kind: "AND" | "OR", parts: Where[]): Where {
  if (parts.length === 1) return parts[0]!;
  // Flatten nested groups of the same kind, e.g. a;(b;c) → AND [a, b, c].
  const flat = parts.flatMap((part) => {
    const keys = Object.keys(part);
    const nested = part[kind];
    return keys.length === 1 && Array.isArray(nested) ? nested : [part];
  });
  return kind === "AND" ? { AND: flat } : { OR: flat };
}
