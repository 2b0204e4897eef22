import { spawn } from "node:child_process";
import { type Account, serverEnv } from "@/lib/db/embedded/account";

/** Running PostgreSQL's programs and keeping the tail of what they print. */

const OUTPUT_LIMIT = 64 * 1024;

/** The last OUTPUT_LIMIT characters a process wrote: kept quiet, shown when something fails. */
export class OutputTail {
  private text = "";
  push(chunk: Buffer): void {
    this.text = (this.text + chunk.toString("utf8")).slice(-OUTPUT_LIMIT);
  }
  toString(): string {
    return this.text.trimEnd();
  }
}

export function runToExit(
  file: string,
  args: string[],
  account: Account | undefined,
): Promise<{ code: number | null; how: string; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(file, args, { stdio: ["ignore", "pipe", "pipe"], env: serverEnv(), ...account });
    const output = new OutputTail();
    child.stdout?.on("data", (chunk: Buffer) => output.push(chunk));
    child.stderr?.on("data", (chunk: Buffer) => output.push(chunk));
    child.once("error", (err) => resolve({ code: null, how: `spawn failed: ${err.message}`, output: output.toString() }));
    child.once("close", (code, sig) =>
      resolve({ code, how: sig ? `signal ${sig}` : `exit code ${code}`, output: output.toString() }),
    );
  });
}
