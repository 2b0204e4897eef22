import { readFile } from "node:fs/promises";
import type { ParseArgsConfig } from "node:util";
import { hashApiKey, createApiKey } from "@/lib/auth/api-keys";
import { parsePermissionList } from "@/lib/auth/permissions";
import { rotateSigningKey } from "@/lib/cdn/signing";
import { db } from "@/lib/db/client";
import { createProject, listProjects } from "@/lib/projects/provision";
import { placeSafetyHold, releaseSafetyHold } from "@/lib/assets/safety-hold";
import { parseAction, parseThresholds, parseUnanalysableAction, setModerationSettings } from "@/lib/moderation/settings";
import { setUploadAllowance } from "@/lib/usage/allowance";
import { imageHashPair, perceptualHash } from "@/lib/moderation/hashing/phash";
import { addHashes, createHashList, DEFAULT_MAX_DISTANCE, findMatches, listHashLists, removeHash } from "@/lib/moderation/hashing/lists";

export type Values = Record<string, string | boolean | undefined>;

export interface AdminCommand {
  usage: string;
  options: NonNullable<ParseArgsConfig["options"]>;
  run(values: Values): Promise<unknown>;
}

/** A non-blank string option, trimmed. */
export function required(values: Values, name: string): string {
  const value = values[name];
  if (typeof value !== "string" || value.trim() === "") throw new Error(`--${name} is required`);
  return value.trim();
}

function optionalInt(values: Values, name: string): number | undefined {
  const value = values[name];
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`--${name} must be a non-negative integer`);
  return n;
}

async function readImage(file: string): Promise<Buffer> {
  return readFile(file).catch((err: NodeJS.ErrnoException) => {
    throw new Error(`Cannot read ${file}: ${err.code ?? err.message}`);
  });
}

function hashFailed(file: string) {
  return (err: unknown) => {
    throw new Error(`Cannot hash ${file}: ${err instanceof Error ? err.message : String(err)}`);
  };
}

async function imageHash(file: string): Promise<string> {
  return perceptualHash(await readImage(file)).catch(hashFailed(file));
}

/** Both hashes the pipeline matches (pHash misses mirror-symmetric images that dHash catches). */
async function imageHashes(file: string): Promise<string[]> {
  return imageHashPair(await readImage(file)).catch(hashFailed(file));
}

async function requireProject(projectId: string) {
  const project = await db().project.findFirst({ where: { id: projectId } }).catch(() => null);
  if (!project) throw new Error(`Project ${projectId} not found`);
  return project;
}

export const adminCommands: Record<string, AdminCommand> = {
  "create-project": {
    usage: "--name NAME [--permissions LIST] [--owner-email EMAIL]",
    options: { name: { type: "string" }, permissions: { type: "string" }, "owner-email": { type: "string" } },
    async run(values) {
      const permissions = parsePermissionList(values.permissions as string | undefined);
      const created = await createProject({
        name: required(values, "name"),
        permissions,
        ownerEmail: values["owner-email"] as string | undefined,
      });
      return { projectId: created.projectId, apiKey: created.apiKey, permissions: created.permissions };
    },
  },
  "create-key": {
    usage: "--project ID [--permissions LIST] [--name NAME] [--expires-in-seconds N] [--rate-limit PER_SECOND]",
    options: {
      project: { type: "string" },
      permissions: { type: "string" },
      name: { type: "string" },
      "expires-in-seconds": { type: "string" },
      "rate-limit": { type: "string" },
    },
    async run(values) {
      const project = await requireProject(required(values, "project"));
      const expiresIn = optionalInt(values, "expires-in-seconds");
      const key = await createApiKey({
        projectId: project.id,
        permissions: parsePermissionList(values.permissions as string | undefined),
        name: (values.name as string | undefined) ?? null,
        expiresAt: expiresIn === undefined ? null : new Date(Date.now() + expiresIn * 1000),
        rateLimitPerSecond: optionalInt(values, "rate-limit") ?? null,
      });
      return { projectId: project.id, keyId: key.id, apiKey: key.apiKey, permissions: key.permissions };
    },
  },
  "revoke-key": {
    usage: "--key API_KEY | --id KEY_ID",
    options: { key: { type: "string" }, id: { type: "string" } },
    async run(values) {
      const where = typeof values.key === "string" ? { keyHash: hashApiKey(values.key.trim()) } : { id: required(values, "id") };
      const key = await db().apiKey.findFirst({ where }).catch(() => null);
      if (!key) throw new Error("API key not found");
      const revoked = await db().apiKey.update({ where: { id: key.id }, data: { revokedAt: key.revokedAt ?? new Date() } });
      return { keyId: revoked.id, projectId: revoked.projectId, revokedAt: revoked.revokedAt?.getTime() ?? null };
    },
  },
  "list-projects": {
    usage: "",
    options: {},
    async run() {
      return { projects: await listProjects() };
    },
  },
  "list-keys": {
    usage: "--project ID",
    options: { project: { type: "string" } },
    async run(values) {
      const project = await requireProject(required(values, "project"));
      const keys = await db().apiKey.findMany({ where: { projectId: project.id }, orderBy: { createdAt: "asc" } });
      return {
        keys: keys.map((k) => ({
          keyId: k.id,
          prefix: k.prefix,
          name: k.name,
          permissions: k.permissions,
          createdAt: k.createdAt.getTime(),
          expiresAt: k.expiresAt?.getTime() ?? null,
          revokedAt: k.revokedAt?.getTime() ?? null,
        })),
      };
    },
  },
  "hold-asset": {
    usage: "--asset ID --reason TEXT",
    options: { asset: { type: "string" }, reason: { type: "string" } },
    async run(values) {
      return placeSafetyHold(required(values, "asset"), { reason: required(values, "reason"), source: "admin-cli" });
    },
  },
  "release-hold": {
    usage: "--asset ID",
    options: { asset: { type: "string" } },
    async run(values) {
      return releaseSafetyHold(required(values, "asset"));
    },
  },
  "set-allowance": {
    usage: "--project ID --uploads N   (the allowance of the project's owner; N empty = server default)",
    options: { project: { type: "string" }, uploads: { type: "string" } },
    async run(values) {
      const project = await requireProject(required(values, "project"));
      return setUploadAllowance(project.ownerUserId, optionalInt(values, "uploads") ?? null);
    },
  },
  "set-moderation": {
    usage:
      "--project ID [--thresholds violence=0.8,hate=0.5 | default] [--default-action ignore|alert|hide|purge] [--keep-content true|false] [--unanalysable reject|error|approve]",
    options: {
      project: { type: "string" },
      thresholds: { type: "string" },
      "default-action": { type: "string" },
      "keep-content": { type: "string" },
      unanalysable: { type: "string" },
    },
    async run(values) {
      const keep = values["keep-content"] as string | undefined;
      if (keep !== undefined && keep !== "true" && keep !== "false") throw new Error("--keep-content must be true or false");
      return setModerationSettings(required(values, "project"), {
        thresholds: typeof values.thresholds === "string" ? parseThresholds(values.thresholds) : undefined,
        defaultAction: typeof values["default-action"] === "string" ? parseAction(values["default-action"]) : undefined,
        keepContentByDefault: keep === undefined ? undefined : keep === "true",
        unanalysable: typeof values.unanalysable === "string" ? parseUnanalysableAction(values.unanalysable) : undefined,
      });
    },
  },
  "rotate-signing-key": {
    usage: "   (a new CDN signing key signs from now on; older keys still verify; keys replaced more than 24 h ago are retired)",
    options: {},
    async run() {
      return rotateSigningKey();
    },
  },
  "create-hash-list": {
    usage: "--name NAME [--description TEXT]   (matches place a safety hold)",
    options: { name: { type: "string" }, description: { type: "string" } },
    async run(values) {
      return createHashList({ name: required(values, "name"), description: (values.description as string | undefined) ?? null });
    },
  },
  "add-hashes": {
    usage: "--list NAME (--hashes HEX16,HEX16,... | --image PATH: adds its pHash and dHash) [--label TEXT]",
    options: { list: { type: "string" }, hashes: { type: "string" }, image: { type: "string" }, label: { type: "string" } },
    async run(values) {
      const list = required(values, "list");
      const hasHashes = typeof values.hashes === "string";
      if (hasHashes === (typeof values.image === "string")) throw new Error("Give exactly one of --hashes or --image");
      const hashes = hasHashes
        ? (values.hashes as string).split(",").map((h) => h.trim()).filter(Boolean)
        : await imageHashes(required(values, "image"));
      const result = await addHashes(list, hashes, { label: (values.label as string | undefined) ?? null });
      return { ...result, hashes };
    },
  },
  "remove-hash": {
    usage: "--list NAME --hash HEX16",
    options: { list: { type: "string" }, hash: { type: "string" } },
    async run(values) {
      return removeHash(required(values, "list"), required(values, "hash"));
    },
  },
  "list-hash-lists": {
    usage: "",
    options: {},
    async run() {
      return { lists: await listHashLists() };
    },
  },
  "match-image": {
    usage: `--image PATH [--max-distance N]   (Hamming distance, default ${DEFAULT_MAX_DISTANCE})`,
    options: { image: { type: "string" }, "max-distance": { type: "string" } },
    async run(values) {
      const hash = await imageHash(required(values, "image"));
      return { hash, matches: await findMatches(hash, optionalInt(values, "max-distance") ?? DEFAULT_MAX_DISTANCE) };
    },
  },
};
