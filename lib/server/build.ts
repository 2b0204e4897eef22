import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";

/** `npm start` builds first when there is no production build yet. */
export async function ensureNextBuild(dir: string): Promise<void> {
  if (existsSync(path.join(dir, ".next", "BUILD_ID"))) return;
  console.log("[sieve] No production build found; running `next build` (once)...");
  const nextBin = path.join(dir, "node_modules", "next", "dist", "bin", "next");
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, [nextBin, "build"], {
      cwd: dir,
      stdio: "inherit",
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", NODE_ENV: "production" },
    });
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`next build failed (exit ${code})`))));
  });
}
