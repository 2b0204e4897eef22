import http from "node:http";

/** Timed HTTP calls and the figures the benches print, shared by bench/events.ts and bench/portal.ts. */
export interface TimedReply {
  status: number;
  body: string;
  ms: number;
}

/** One request on a keep-alive agent; `ms` from sending to the last byte. */
export function timedCall(agent: http.Agent, url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<TimedReply> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = http.request(url, { method: init.method ?? "GET", headers: init.headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8"), ms: performance.now() - started }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(init.body);
  });
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
}

export const verdict = (ok: boolean) => (ok ? "OK" : "BELOW TARGET");
