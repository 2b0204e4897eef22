import { authRouteHandlers } from "@/lib/portal/sign-in";

/** Auth.js's own endpoints: session, CSRF token, sign-out. */
export const { GET, POST } = authRouteHandlers;
