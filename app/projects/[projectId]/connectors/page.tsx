import type { Metadata } from "next";
import { ConnectorsPage } from "@/components/connectors/connectors-page";
import { PortalShell } from "@/components/portal/portal-header";
import { NotAllowed } from "@/components/portal/ui";
import { requireProjectMember } from "@/lib/portal/session";

export const metadata: Metadata = { title: "Connectors" };

/* No loading.tsx (see review/page.tsx): the list shows its own loading state. */
export default async function ConnectorsRoute({ params }: { params: Promise<{ projectId: string }> }) {
  const { projectId } = await params;
  const { user, project } = await requireProjectMember(projectId, `/projects/${encodeURIComponent(projectId)}/connectors`);
  return (
    <PortalShell user={user} project={project}>
      {project.permissions.includes("connectors:read") ? (
        <ConnectorsPage projectId={project.id} canWrite={project.permissions.includes("connectors:write")} />
      ) : (
        <NotAllowed what="Connectors are shown to members with the connectors:read permission." />
      )}
    </PortalShell>
  );
}
