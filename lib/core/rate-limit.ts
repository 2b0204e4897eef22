import { ApiError } from "@/lib/core/errors";
import { processSingleton } from "@/lib/core/singleton";

/**
 * Per-API-key token bucket, kept in process memory: `perSecond` tokens refill each second up to
 * `burst`. With several server processes each enforces its own bucket (documented in the README).
 */
interface Bucket {
  tokens: number;
  updatedAt: number;
}

const buckets = processSingleton("rateLimitBuckets", () => new Map<string, Bucket>());

export interface RateLimit {
  perSecond: number;
  burst: number;
}

/** Takes one token for `key` or throws 429 with Retry-After. `perSecond` 0 disables limiting. */
export function takeToken(key: string, limit: RateLimit, now = Date.now()): { limit: number; remaining: number } {
  if (limit.perSecond <= 0) return { limit: 0, remaining: 0 };
  const capacity = Math.max(limit.burst, 1);
  const bucket = buckets.get(key) ?? { tokens: capacity, updatedAt: now };
  bucket.tokens = Math.min(capacity, bucket.tokens + ((now - bucket.updatedAt) / 1000) * limit.perSecond);
  bucket.updatedAt = now;
  buckets.set(key, bucket);
  if (bucket.tokens < 1) {
    const retryAfter = Math.max(1, Math.ceil((1 - bucket.tokens) / limit.perSecond));
    throw new ApiError("rate-limit/exceeded", `Too many requests; retry after ${retryAfter} s.`, {
      headers: {
        "Retry-After": String(retryAfter),
        "X-RateLimit-Limit": String(limit.perSecond),
        "X-RateLimit-Remaining": "0",
      },
    });
  }
  bucket.tokens -= 1;
  if (buckets.size > 50_000) pruneFullBuckets(now, limit);
  return { limit: limit.perSecond, remaining: Math.floor(bucket.tokens) };
}

/** Gives back a token taken by takeToken (e.g. a sign-in that succeeded counts as no attempt). */
export function refundToken(key: string, limit: RateLimit): void {
  const bucket = buckets.get(key);
  if (bucket) bucket.tokens = Math.min(Math.max(limit.burst, 1), bucket.tokens + 1);
}

/** Drops buckets that have refilled completely; they carry no information. */
function pruneFullBuckets(now: number, limit: RateLimit) {
  for (const [key, bucket] of buckets) {
    if (bucket.tokens + ((now - bucket.updatedAt) / 1000) * limit.perSecond >= limit.burst) buckets.delete(key);
  }
}

