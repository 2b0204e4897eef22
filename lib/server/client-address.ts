/**
 * Set by the server on every request Next.js sees (overwriting anything the client sent): the TCP
 * peer's address, for per-address limits such as sign-in attempts.
 */
export const CLIENT_ADDRESS_HEADER = "x-sieve-client-address";
