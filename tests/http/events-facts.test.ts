import { describe, expect, it } from "vitest";
import { EVENT_TYPES } from "@/lib/events/catalogue";
import { addProjectMember } from "@/lib/projects/members";
import { db } from "@/lib/db/client";
import { setUploadAllowance } from "@/lib/usage/allowance";
import { BENIGN, THREAT, allEvents, createText } from "./events-support";
import { expectOk, newProject, waitForDecision } from "./support";

/**
 * Every event type the service emits carries exactly the spec's fact keys, in the spec's order
 * ("Facts by type"), its default severity and notify flag, and the asset snapshot at event time.
 * connector.failing is emitted by connector delivery and tested there.
 */
const SPEC_FACTS: Record<string, string[]> = {
  "asset.uploaded": ["asset-name", "asset-type", "file-format"],
  "asset.classified": ["asset-name", "asset-type", "status", "moderation-action"],
  "asset.flagged": ["asset-name", "asset-type", "flagged-categories", "moderation-action"],
  "asset.approved": ["asset-name", "asset-type", "reviewer-user-id", "reviewer-name", "note"],
  "asset.rejected": ["asset-name", "asset-type", "reviewer-user-id", "reviewer-name", "note"],
  "asset.failed": ["asset-name", "asset-type", "previous-status"],
  "usage.limit-reached": ["limit", "used", "owner-user-id"],
  "project.member-joined": ["member-user-id", "member-name", "role", "invited-by-user-id"],
  "connector.failing": ["connector-id", "connector-name", "connector-type", "consecutive-failures", "last-error"],
};
const SPEC_SEVERITY: Record<string, "low" | "high"> = {
  "asset.uploaded": "low",
  "asset.classified": "low",
  "asset.flagged": "high",
  "asset.approved": "low",
  "asset.rejected": "high",
  "asset.failed": "high",
  "usage.limit-reached": "high",
  "project.member-joined": "low",
  "connector.failing": "high",
};

describe("event facts", () => {
  it("the catalogue has the spec's nine types with their severities", () => {
    expect(Object.keys(EVENT_TYPES).sort()).toEqual(Object.keys(SPEC_FACTS).sort());
    for (const [type, { severity }] of Object.entries(EVENT_TYPES)) expect(severity, type).toBe(SPEC_SEVERITY[type]);
  });

  it("every reachable type carries exactly the spec's fact keys, in order", async () => {
    const p = await newProject();
    await setUploadAllowance(p.ownerUserId, 4);
    const fine = await createText(p, BENIGN, "fine.txt", { externalId: "fine-1" });
    const threat = await createText(p, THREAT, "threat.txt", { processingOptions: { keepContentAfterProcessing: true } });
    const broken = expectOk(
      await p.client.post(`/projects/${p.projectId}/assets?queue=true`, {
        name: "broken.pdf",
        content: { type: "application/pdf", base64: Buffer.from("%PDF-1.4\nnot a pdf\n%%EOF\n", "latin1").toString("base64") },
      }),
    );
    // The fourth upload uses the allowance up: usage.limit-reached.
    await createText(p, BENIGN, "last.txt");
    expect((await waitForDecision(p.client, broken.id, 60_000)).status).toBe("error");
    expectOk(await p.client.post(`/assets/${threat.id}/review`, { decision: "approve", note: "context" }));
    expectOk(await p.client.post(`/assets/${fine.id}/review`, { decision: "reject" }));
    const member = await db().user.create({ data: { email: `m-${p.projectId}@example.com`, name: "Member" } });
    await addProjectMember({ projectId: p.projectId, userId: member.id, role: "member", invitedByUserId: null });

    // 4 uploaded, 3 classified, 1 flagged, 1 failed, 1 limit, 1 approved, 1 rejected, 1 member.
    const events = await allEvents(p, 13);
    expect(events).toHaveLength(13);
    const seen = new Set(events.map((e) => e.type));
    expect([...seen].sort()).toEqual(Object.keys(SPEC_FACTS).filter((t) => t !== "connector.failing").sort());
    for (const event of events) {
      expect(event.facts.map((f: any) => f.key), event.type).toEqual(SPEC_FACTS[event.type]);
      for (const fact of event.facts) expect(Object.keys(fact).sort(), event.type).toEqual(["key", "value"]);
      expect(event.severity, event.type).toBe(SPEC_SEVERITY[event.type]);
      expect(event.notify, event.type).toBe(EVENT_TYPES[event.type as keyof typeof EVENT_TYPES].notify);
      expect(event.title, event.type).toEqual(expect.any(String));
      expect(event.projectId).toBe(p.projectId);
      if (event.type.startsWith("asset.")) {
        expect(Object.keys(event.asset).sort(), event.type).toEqual(["externalId", "flagged", "id", "moderationAction", "status"]);
        expect(event.assetId).toBe(event.asset.id);
      } else {
        expect(event.asset, event.type).toBeNull();
        expect(event.assetId, event.type).toBeNull();
      }
    }

    const of = (type: string, assetId?: string) => events.find((e) => e.type === type && (assetId === undefined || e.assetId === assetId));
    const values = (event: any) => event.facts.map((f: any) => f.value);
    // Snapshots and values at event time.
    expect(of("asset.uploaded", fine.id).asset).toEqual({ id: fine.id, externalId: "fine-1", status: "pending", flagged: null, moderationAction: null });
    expect(values(of("asset.uploaded", fine.id))).toEqual(["fine.txt", "plaintext-document", "text/plain"]);
    expect(of("asset.classified", fine.id).asset).toEqual({ id: fine.id, externalId: "fine-1", status: "approved", flagged: false, moderationAction: null });
    expect(values(of("asset.classified", fine.id))).toEqual(["fine.txt", "plaintext-document", "approved", null]);
    expect(values(of("asset.classified", threat.id))).toEqual(["threat.txt", "plaintext-document", "rejected", "hide"]);
    expect(values(of("asset.flagged"))).toEqual(["threat.txt", "plaintext-document", expect.arrayContaining(["violence"]), "hide"]);
    expect(of("asset.flagged").asset).toMatchObject({ status: "rejected", flagged: true, moderationAction: "hide" });
    expect(values(of("asset.failed"))).toEqual(["broken.pdf", "multimedia-document", "pending"]);
    expect(of("asset.failed").asset).toMatchObject({ id: broken.id, status: "error" });
    expect(values(of("usage.limit-reached"))).toEqual([4, 4, p.ownerUserId]);
    expect(values(of("asset.approved"))).toEqual(["threat.txt", "plaintext-document", null, "default", "context"]);
    expect(of("asset.approved").asset).toMatchObject({ id: threat.id, status: "approved", flagged: true, moderationAction: "hide" });
    expect(values(of("asset.rejected"))).toEqual(["fine.txt", "plaintext-document", null, "default", null]);
    expect(of("asset.rejected").asset).toMatchObject({ id: fine.id, status: "rejected", flagged: false });
    expect(values(of("project.member-joined"))).toEqual([member.id, "Member", "member", null]);
  });
});
