import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { INSERT_UPLOADED_ASSET } from "@/lib/assets/insert";
import {
  LOCK_PENDING_ASSET,
  MARK_CONTENT_REMOVED,
  MARK_PROCESSING_FAILED,
  UPDATE_DECIDED_ASSET,
  UPSERT_CHILD_ASSET,
} from "@/lib/assets/processing/outcome";
import { REQUEUE_STALE_PENDING } from "@/lib/assets/processing/reconcile";
import { OLDEST_QUEUED_LABELS, QUEUE_LABELLING, REMOVE_FROM_LABEL_QUEUE, TAKE_DUE_LABELS } from "@/lib/assets/labels/queue";
import { DELETE_LABEL_TERMS, INSERT_DESCRIPTION_TERMS, INSERT_LABEL_TERMS, LOCK_LABELLED_ASSET, UPDATE_IMAGE_LABELS } from "@/lib/assets/labels/store";
import { NATURAL_SEARCH } from "@/lib/assets/search/natural";
import { SELECT_CDN_ASSET } from "@/lib/cdn/asset-state";
import { SELECT_CDN_LENS } from "@/lib/cdn/lens-lookup";
import { INSERT_FIRST_SIGNING_KEY, SELECT_SIGNING_KEYS } from "@/lib/cdn/signing";
import { DISPATCH_PASS, SELECT_ANY_ENABLED_CONNECTOR } from "@/lib/connectors/dispatch";
import { SELECT_DISPATCH_CONNECTORS } from "@/lib/connectors/delivery/dispatch-connectors";
import {
  DELETE_DISPATCH_PASSES,
  INSERT_DISPATCHED_DELIVERIES,
  RECOVER_DISPATCH_PASS,
  SELECT_EVENT_DELIVERY_IDS,
} from "@/lib/connectors/delivery/passes";
import { CLAIM_LOST_DELIVERIES, MARK_DELIVERIES_QUEUED } from "@/lib/connectors/delivery-jobs";
import { FAIL_DELIVERY } from "@/lib/connectors/delivery/give-up";
import {
  CANCEL_DELIVERY,
  CANCEL_PENDING_DELIVERIES,
  INSERT_TEST_DELIVERY,
  LOCK_CONNECTOR_FAILURES,
  RECORD_ATTEMPT,
  RECORD_SUCCESSES,
  INSERT_FIRST_SUCCESSES,
  INSERT_FIRST_SUCCESSES_SKIPPING,
  TOUCH_CONNECTOR_SUCCESS,
  UPDATE_CONNECTOR_FAILURE,
} from "@/lib/connectors/delivery/store";
import { LOAD_DELIVERIES, LOAD_DELIVERY } from "@/lib/connectors/delivery/load";
import { SELECT_FEED_PAGE, SELECT_HORIZON } from "@/lib/events/feed";
import { FIND_HOLD_MATCH } from "@/lib/moderation/hashing/lists";
import { eventInsertSql } from "@/lib/events/record";
import { outboxInsertSql, TAKE_OUTBOX_BATCH } from "@/lib/jobs/outbox";
import { SELECT_ALLOWANCE, SELECT_ASSET_COUNTS, SELECT_DECISIONS_PER_DAY, SELECT_REVIEWER_THROUGHPUT } from "@/lib/usage/report";
import { migratedClient } from "@/tests/support/migrated-database";
import { SELECT_CLAIMABLE_RUNS } from "@/lib/executor/claiming";
import { BUFFER_BATCH_EVENT, SELECT_DUE_BATCH_KEYS, SELECT_FULL_BATCH_KEYS, SELECT_NEXT_BATCH_DUE, TAKE_BATCH } from "@/lib/executor/batching";

/**
 * One owner per table, and hand-written SQL that cannot drift from the Prisma schema:
 * - only lib/assets writes `assets`, only lib/events writes `events`, only lib/jobs writes
 *   `pipeline_outbox` (a scan of every source file);
 * - every column named in a hand-written INSERT/UPDATE exists in prisma/schema.prisma, and the upload
 *   INSERT sets every required column the database cannot fill itself;
 * - every statement prepares against a database migrated from prisma/migrations (which
 *   `npm test` checks against the schema), so types and the rest of the SQL are checked too.
 */
const root = process.cwd();

const STATEMENTS: Record<string, string> = {
  INSERT_UPLOADED_ASSET,
  LOCK_PENDING_ASSET,
  UPDATE_DECIDED_ASSET,
  UPSERT_CHILD_ASSET,
  MARK_CONTENT_REMOVED,
  MARK_PROCESSING_FAILED,
  REQUEUE_STALE_PENDING,
  eventInsertSql: eventInsertSql(1),
  outboxInsertSql: outboxInsertSql(1),
  INSERT_FIRST_SIGNING_KEY,
  INSERT_DISPATCHED_DELIVERIES,
  RECOVER_DISPATCH_PASS,
  INSERT_FIRST_SUCCESSES,
  INSERT_FIRST_SUCCESSES_SKIPPING,
  DISPATCH_PASS,
  MARK_DELIVERIES_QUEUED,
  CLAIM_LOST_DELIVERIES,
  RECORD_ATTEMPT,
  RECORD_SUCCESSES,
  TOUCH_CONNECTOR_SUCCESS,
  CANCEL_DELIVERY,
  UPDATE_CONNECTOR_FAILURE,
  CANCEL_PENDING_DELIVERIES,
  INSERT_TEST_DELIVERY,
  FAIL_DELIVERY,
  BUFFER_BATCH_EVENT,
  UPDATE_IMAGE_LABELS,
  INSERT_LABEL_TERMS,
  QUEUE_LABELLING,
  INSERT_DESCRIPTION_TERMS,
};

/** Hand-written reads: no column list to compare, but they must prepare like the writes. */
const READS: Record<string, string> = {
  SELECT_CDN_ASSET,
  SELECT_CDN_LENS,
  SELECT_SIGNING_KEYS,
  SELECT_DISPATCH_CONNECTORS,
  SELECT_EVENT_DELIVERY_IDS,
  DELETE_DISPATCH_PASSES,
  SELECT_ANY_ENABLED_CONNECTOR,
  LOAD_DELIVERY,
  LOAD_DELIVERIES,
  LOCK_CONNECTOR_FAILURES,
  SELECT_FEED_PAGE,
  SELECT_HORIZON,
  FIND_HOLD_MATCH,
  SELECT_ALLOWANCE,
  SELECT_ASSET_COUNTS,
  SELECT_DECISIONS_PER_DAY,
  SELECT_REVIEWER_THROUGHPUT,
  SELECT_CLAIMABLE_RUNS,
  SELECT_FULL_BATCH_KEYS,
  SELECT_DUE_BATCH_KEYS,
  SELECT_NEXT_BATCH_DUE,
  LOCK_LABELLED_ASSET,
  NATURAL_SEARCH,
  TAKE_DUE_LABELS,
  OLDEST_QUEUED_LABELS,
  // DELETEs: no column list to compare.
  DELETE_LABEL_TERMS,
  REMOVE_FROM_LABEL_QUEUE,
  TAKE_BATCH,
  TAKE_OUTBOX_BATCH,
};

interface Column {
  name: string;
  /** NOT NULL with no default the database applies (Prisma's @updatedAt is set by the client). */
  requiredInSql: boolean;
}

/** Tables of prisma/schema.prisma: table name → columns. */
function schemaTables(): Map<string, Column[]> {
  const schema = readFileSync(path.join(root, "prisma/schema.prisma"), "utf8");
  const models = [...schema.matchAll(/^model (\w+) \{([\s\S]*?)^\}/gm)];
  const modelNames = new Set(models.map((m) => m[1]!));
  const tables = new Map<string, Column[]>();
  for (const [, name, body] of models) {
    const table = /@@map\("([^"]+)"\)/.exec(body!)?.[1] ?? name!;
    const columns: Column[] = [];
    for (const line of body!.split("\n")) {
      const field = /^\s+(\w+)\s+([\w]+)(\?|\[\])?(.*)$/.exec(line);
      if (!field || line.trim().startsWith("//")) continue;
      const [, fieldName, type, modifier, rest] = field;
      if (modelNames.has(type!)) continue; // a relation, not a column
      const column = /@map\("([^"]+)"\)/.exec(rest!)?.[1] ?? fieldName!;
      // uuid()/cuid() defaults are applied by the Prisma client, not by the database.
      const hasDefault = /@default\((?!uuid\(\)|cuid\(\))/.test(rest!);
      columns.push({ name: column, requiredInSql: modifier === undefined && !hasDefault });
    }
    tables.set(table, columns);
  }
  return tables;
}

/** Column names a statement writes to `table`: INSERT column lists and UPDATE … SET targets. */
function writtenColumns(sql: string, table: string): string[] {
  const columns: string[] = [];
  for (const m of sql.matchAll(new RegExp(`INSERT INTO ${table}\\s*\\(([^)]*)\\)`, "g"))) {
    columns.push(...m[1]!.split(",").map((c) => c.trim()));
  }
  for (const m of sql.matchAll(new RegExp(`UPDATE ${table}(?:\\s+\\w+)?\\s+SET\\s+([\\s\\S]*?)(?:\\bFROM\\b|\\bWHERE\\b|\\bRETURNING\\b|$)`, "g"))) {
    columns.push(...setTargets(m[1]!));
  }
  return columns;
}

/** `a = f(x, y), b = $2` → [a, b]: assignments split at top-level commas. */
function setTargets(assignments: string): string[] {
  const targets: string[] = [];
  let depth = 0;
  let current = "";
  for (const ch of assignments + ",") {
    if (ch === "(") depth++;
    if (ch === ")") depth--;
    if (ch === "," && depth === 0) {
      const target = /^\s*(\w+)\s*=/.exec(current)?.[1];
      if (target) targets.push(target);
      current = "";
    } else current += ch;
  }
  return targets;
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir)) {
    const full = path.join(dir, entry);
    if (["generated", "node_modules"].includes(entry)) continue;
    if (statSync(full).isDirectory()) out.push(...sourceFiles(full));
    else if (/\.(ts|tsx)$/.test(entry) && !/\.test\.tsx?$/.test(entry)) out.push(path.relative(root, full));
  }
  return out;
}

const OWNERS: { table: string; model: string; owner: RegExp }[] = [
  { table: "assets", model: "asset", owner: /^lib\/assets\// },
  { table: "asset_labels", model: "assetLabel", owner: /^lib\/assets\// },
  { table: "label_queue", model: "labelQueue", owner: /^lib\/assets\/labels\/queue\.ts$/ },
  { table: "events", model: "event", owner: /^lib\/events\// },
  { table: "pipeline_outbox", model: "pipelineOutbox", owner: /^lib\/jobs\/outbox\.ts$/ },
  { table: "connector_deliveries", model: "connectorDelivery", owner: /^lib\/connectors\// },
  { table: "connectors", model: "connector", owner: /^lib\/connectors\// },
  { table: "connector_dispatch_passes", model: "connectorDispatchPass", owner: /^lib\/connectors\// },
];

describe("table ownership", () => {
  const files = ["lib", "app", "inngest", "scripts", "components"]
    .filter((d) => {
      try {
        return statSync(path.join(root, d)).isDirectory();
      } catch {
        return false;
      }
    })
    .flatMap((d) => sourceFiles(path.join(root, d)))
    .concat("server.ts");

  for (const { table, model, owner } of OWNERS) {
    it(`only ${owner.source.replace(/\\/g, "")} writes ${table}`, () => {
      const write = new RegExp(`\\.${model}\\.(create|createMany|update|updateMany|upsert|delete|deleteMany)\\b|\\b(INSERT INTO|UPDATE|DELETE FROM)\\s+${table}\\b`);
      const writers = files.filter((f) => write.test(readFileSync(path.join(root, f), "utf8")));
      expect(writers.length).toBeGreaterThan(0);
      expect(writers.filter((f) => !owner.test(f))).toEqual([]);
    });
  }
});

describe("hand-written SQL matches the Prisma schema", () => {
  const tables = schemaTables();

  it("reads the schema's tables", () => {
    expect(tables.get("assets")?.map((c) => c.name)).toContain("processing_generation");
    expect(tables.get("events")?.map((c) => c.name)).toContain("txid");
  });

  for (const [name, sql] of Object.entries(STATEMENTS)) {
    it(`${name} names only columns the schema has`, () => {
      let checked = 0;
      for (const [table, columns] of tables) {
        const known = new Set(columns.map((c) => c.name));
        const written = writtenColumns(sql, table);
        checked += written.length;
        expect(written.filter((c) => !known.has(c)), `${name} → ${table}`).toEqual([]);
      }
      if (!name.startsWith("LOCK")) expect(checked).toBeGreaterThan(0);
    });
  }

  it("the upload INSERT sets every column the database cannot fill", () => {
    const written = new Set(writtenColumns(INSERT_UPLOADED_ASSET, "assets"));
    const required = tables.get("assets")!.filter((c) => c.requiredInSql).map((c) => c.name);
    expect(required.filter((c) => !written.has(c))).toEqual([]);
  });

  it("the checker catches a column the schema lacks", () => {
    expect(writtenColumns("UPDATE assets SET status = $2, no_such_column = now() WHERE id = $1", "assets")).toContain("no_such_column");
  });
});

describe("hand-written SQL prepares against the migrated database", () => {
  const migrated = migratedClient("sql");

  for (const [name, sql] of Object.entries({ ...STATEMENTS, ...READS })) {
    it(`${name} prepares`, async () => {
      await migrated.client.query(`PREPARE check_statement AS ${sql}`);
      await migrated.client.query(`DEALLOCATE check_statement`);
    });
  }

  it("a statement naming a missing column does not prepare", async () => {
    await expect(migrated.client.query(`PREPARE broken AS UPDATE assets SET no_such_column = 1 WHERE id = $1`)).rejects.toThrow(/no_such_column/);
  });
});
