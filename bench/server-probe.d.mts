/** Types of bench/server-probe.mjs (plain JavaScript: the server loads it before tsx). */
export function plainSignedPosts(url: string, body: string, count: number, inFlight: number): Promise<number>;
export function plainSignedPostsUndici(url: string, body: string, count: number, inFlight: number): Promise<number>;
