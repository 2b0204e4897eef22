/**
 * Operator CLI: `npm run --silent admin -- <command> [options]`. Every command prints exactly one
 * JSON line on stdout (errors: one JSON line on stderr and exit code 1).
 */
import { parseArgs } from "node:util";
import { adminCommands as platformCommands, type AdminCommand } from "@/lib/admin/commands";
import { memberCommands } from "@/lib/admin/member-commands";
import { ensureDatabase } from "@/lib/db/database";

const adminCommands: Record<string, AdminCommand> = { ...platformCommands, ...memberCommands };

async function main(): Promise<number> {
  const [name, ...rest] = process.argv.slice(2);
  const command: AdminCommand | undefined = name && Object.hasOwn(adminCommands, name) ? adminCommands[name] : undefined;
  if (!command) {
    const list = Object.entries(adminCommands).map(([n, c]) => `  ${n} ${c.usage}`).join("\n");
    process.stderr.write(`Usage: npm run --silent admin -- <command> [options]\nCommands:\n${list}\n`);
    return name ? 1 : 0;
  }
  const { values } = parseArgs({ args: rest, options: command.options, strict: true, allowPositionals: false });
  const database = await ensureDatabase();
  try {
    const result = await command.run(values as Record<string, string | boolean | undefined>);
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } finally {
    await database.stop(); // closes the pool, then the embedded server if this process started it
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`${JSON.stringify({ error: message })}\n`);
    process.exit(1);
  },
);
