import type { Prisma } from "@/lib/db/generated/client";

/**
 * Where a hand-written statement runs: a pg client or pool (the SQL paths) or a Prisma transaction,
 * so one module can own a table's SQL whichever kind of transaction its caller holds.
 */
export interface SqlRunner {
  query(text: string, values: unknown[]): Promise<unknown>;
}

/** A Prisma interactive transaction as a SqlRunner. */
export function prismaRunner(tx: Prisma.TransactionClient): SqlRunner {
  return { query: (text, values) => tx.$executeRawUnsafe(text, ...values) };
}

/** `$n, $n+1, …` placeholders are numbered from `first`, so a statement can sit inside a larger one. */
export function placeholders(first: number, casts: readonly string[]): string[] {
  return casts.map((cast, i) => `$${first + i}::${cast}`);
}
