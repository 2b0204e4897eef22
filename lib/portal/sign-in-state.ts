/** What the sign-in form's server action returns when it does not redirect. */
export interface SignInState {
  error: string | null;
}

/**
 * Where to go after signing in: a path on this site only (an open redirect would let a phishing
 * link bounce through our sign-in page), else the project list.
 */
export function safeCallbackPath(value: unknown): string {
  if (typeof value !== "string" || !value.startsWith("/") || value.startsWith("//") || value.startsWith("/\\")) return "/projects";
  if (value.startsWith("/login") || value.startsWith("/api/")) return "/projects";
  return value;
}
