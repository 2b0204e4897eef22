import { readFileSync } from "node:fs";
import path from "node:path";

/** What e2e/global-setup.ts hands to the specs (written to reports/e2e-env.json). */
export const ENV_FILE = path.join(process.cwd(), "reports", "e2e-env.json");

export interface E2eUser {
  email: string;
  password: string;
  name: string;
  userId: string;
}

export interface E2eAsset {
  id: string;
  name: string;
}

export interface E2eProject {
  id: string;
  name: string;
  apiKey: string;
  /** Rejected text assets (in the review queue). */
  texts: E2eAsset[];
  image?: E2eAsset;
  audio?: E2eAsset;
  /** An undecodable image that ended in `error` (approve is not possible). */
  broken?: E2eAsset;
}

/** The owner console's pages, each with a project of its own (admin: the admin user; normal thresholds). */
export const CONSOLE_AREAS = ["folders", "lenses", "events", "keys", "connectors", "members", "usage", "projects"] as const;
export type ConsoleArea = (typeof CONSOLE_AREAS)[number];

export interface E2eEnv {
  baseUrl: string;
  /** For specs that run the admin CLI (e2e/seed.ts adminCli) against the test server. */
  databaseUrl: string;
  dataDir: string;
  /** One project per console page; the admin user is its admin, the member user a member. */
  console: Record<ConsoleArea, E2eProject>;
  projects: {
    /** Read-only views: roles, detail page, wellbeing, accessibility. Nobody decides here. */
    review: E2eProject;
    /** The keyboard spec decides these. */
    keyboard: E2eProject;
    /** The bulk spec decides these. */
    bulk: E2eProject;
    /** More items than one queue page (25): paging with Load more and with j. */
    paging: E2eProject;
  };
  users: {
    /** Admin of every project. */
    admin: E2eUser;
    member: E2eUser;
    viewer: E2eUser;
    /** Member of no project. */
    outsider: E2eUser;
    /** Only the rate-limit test signs in as this user (with wrong passwords). */
    limited: E2eUser;
  };
}

let cached: E2eEnv | undefined;

export function e2eEnv(): E2eEnv {
  cached ??= JSON.parse(readFileSync(ENV_FILE, "utf8")) as E2eEnv;
  return cached;
}
