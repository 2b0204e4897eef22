/** Complexity caps for asset filters; exceeding one is a validation error. */
export const ASSET_FILTER_LIMITS = {
  /** Characters in the (URL-decoded) filter string. */
  maxLength: 2000,
  /** Comparisons (`field op value`) in one filter. */
  maxConstraints: 50,
  /** Parenthesis nesting depth. */
  maxDepth: 10,
  /** Values in one `=in=` / `=out=` list. */
  maxListValues: 100,
} as const;
