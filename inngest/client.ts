import { Inngest } from "inngest";

/**
 * The one Inngest client. No environment branching here: INNGEST_SIGNING_KEY, INNGEST_EVENT_KEY
 * and INNGEST_BASE_URL choose Inngest Cloud, self-hosted Inngest or the embedded executor
 * (lib/executor/mode.ts sets them for the embedded one before the app loads).
 */
export const inngest = new Inngest({ id: "sieve" });
