import { inngest } from "@/inngest/client";

/**
 * The only door from lib/ to the Inngest client (inngest/client.ts): job messages go out here, so
 * swapping the job runner touches one module.
 */
export interface JobMessage {
  /** Deduplication id: the same job sent twice runs once. */
  id: string;
  /** The Inngest event name. */
  name: string;
  data: Record<string, unknown>;
  /** Sent ahead of the other queued messages (a request is waiting for this job). */
  urgent?: boolean;
}

export async function sendJobs(messages: readonly JobMessage[]): Promise<void> {
  await inngest.send(messages.map((m) => ({ id: m.id, name: m.name, data: m.data })));
}

/**
 * Re-reads INNGEST_* from the environment: a client constructed before the embedded executor set
 * them (imported by the server's own modules) read the old values; Next.js's copy reads the new ones.
 */
export function reloadJobClientEnvironment(): void {
  inngest.setEnvVars();
}
