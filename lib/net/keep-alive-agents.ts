import http from "node:http";
import https from "node:https";
import type { LookupAddress } from "node:dns";
import type { LookupFunction } from "node:net";
import { lruAdd, lruGet } from "@/lib/core/lru";
import { processSingleton } from "@/lib/core/singleton";

/**
 * Keep-alive agents for safeFetch's `keepAlive` option (webhook deliveries), one per (protocol,
 * hostname, port, the sorted set of checked addresses). An agent's sockets were all connected to
 * addresses in its key's set — its `lookup` answers with exactly those — so a pooled socket is only
 * ever reused for a request whose own resolution, done and checked in full for that hop, produced
 * the same set: the agent is cached, never the verdict. A host that now resolves elsewhere gets
 * another agent (or is refused before any agent is chosen).
 *
 * Bounded: at most MAX_AGENTS agents (least recently used evicted: its idle sockets closed), each
 * with at most MAX_SOCKETS sockets; idle sockets close after IDLE_MS, a little under the 5 s
 * keep-alive timeout of Node servers so we rarely reuse a socket the server is closing, and are
 * unref'd by the agent, so they never keep the process alive.
 */
const MAX_AGENTS = 256;
const MAX_SOCKETS = 16;
const IDLE_MS = 4000;

type Agent = http.Agent | https.Agent;

const agents = () => processSingleton("safeFetchKeepAliveAgents", () => new Map<string, Agent>());

export function agentKey(url: URL, host: string, addresses: readonly LookupAddress[]): string {
  const sorted = addresses.map((a) => `${a.family}/${a.address}`).sort();
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  return `${url.protocol}//${host}:${port} ${sorted.join(",")}`;
}

/** A lookup that answers with the checked addresses only. */
export function pinnedLookup(addresses: readonly LookupAddress[]): LookupFunction {
  const first = addresses[0]!;
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [...addresses]);
    else callback(null, first.address, first.family);
  };
}

/**
 * The keep-alive agent for these checked addresses of this URL's origin (created on first use).
 * `key` is agentKey(url, host, addresses), for a caller that computed it once for many requests.
 */
export function keepAliveAgent(url: URL, host: string, addresses: readonly LookupAddress[], key = agentKey(url, host, addresses)): Agent {
  const cached = lruGet(agents(), key);
  if (cached) return cached;
  const options = { keepAlive: true, maxSockets: MAX_SOCKETS, maxFreeSockets: MAX_SOCKETS, timeout: IDLE_MS, lookup: pinnedLookup(addresses) };
  const agent = url.protocol === "https:" ? new https.Agent(options) : new http.Agent(options);
  lruAdd(agents(), key, agent, MAX_AGENTS, retire);
  return agent;
}

/** Closes an evicted agent's idle sockets; sockets still in use close when they go idle. */
function retire(agent: Agent): void {
  (agent as { keepAlive?: boolean }).keepAlive = false;
  for (const sockets of Object.values(agent.freeSockets)) for (const socket of sockets ?? []) socket.destroy();
}

/** Test hook: the number of cached agents, and closing them all. */
export function keepAliveAgentCount(): number {
  return agents().size;
}

export function closeKeepAliveAgents(): void {
  for (const agent of agents().values()) agent.destroy();
  agents().clear();
}
