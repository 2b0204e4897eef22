import type { Metadata } from "next";
import { PortalShell } from "@/components/portal/portal-header";
import { UsageDashboard } from "@/components/usage/usage-dashboard";
import { requireProjectMember } from "@/lib/portal/session";

export const metadata: Metadata = { title: "Usage" };

/** Every member may see the project's usage (no API permission covers it; nothing here is secret). */
export default async function UsagePage({ params }: { params: Promise<{ projectId: string }> }) {
  const { projectId } = await params;
  const { user, project } = await requireProjectMember(projectId, `/projects/${encodeURIComponent(projectId)}/usage`);
  return (
    <PortalShell user={user} project={project}>
      <UsageDashboard projectId={project.id} />
    </PortalShell>
  );
}
