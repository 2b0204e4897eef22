import { inngest } from "@/inngest/client";
import { processSingleton } from "@/lib/core/singleton";

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

/** An event as the embedded executor records it (what its event API makes of a sent one). */
export interface JobEvent {
  id: string;
  name: string;
  data: Record<string, unknown>;
  ts: number;
}

type LocalSend = (events: JobEvent[]) => Promise<unknown>;

const local = () => processSingleton<{ send: LocalSend | null }>("jobs.sendInProcess", () => ({ send: null }));

/**
 * The embedded executor, when it runs in this process (lib/executor/mode.ts), takes job messages
 * directly instead of through its event API over loopback HTTP (about 1.5 ms on every job's path).
 */
export function sendJobsInProcess(send: LocalSend | null): void {
  local().send = send;
}

export async function sendJobs(messages: readonly JobMessage[]): Promise<void> {
  const send = local().send;
  if (!send) {
    await inngest.send(messages.map((m) => ({ id: m.id, name: m.name, data: m.data })));
    return;
  }
  const ts = Date.now();
  // Handed over as they are, not copied through JSON as the event API would: the one sender, the
  // outbox, parsed them from jsonb just now and keeps nothing of them.
  await send(messages.map((m) => ({ id: m.id, name: m.name, data: m.data, ts })));
}

/**
 * Re-reads INNGEST_* from the environment: a client constructed before the embedded executor set
 * them (imported by the server's own modules) read the old values; Next.js's copy reads the new ones.
 */
export function reloadJobClientEnvironment(): void {
  inngest.setEnvVars();
}
