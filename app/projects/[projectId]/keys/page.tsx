import type { Metadata } from "next";
import { ApiKeysPage } from "@/components/keys/api-keys-page";
import { PortalShell } from "@/components/portal/portal-header";
import { NotAllowed } from "@/components/portal/ui";
import { isProjectAdmin } from "@/lib/auth/permissions";
import { requireProjectMember } from "@/lib/portal/session";

export const metadata: Metadata = { title: "API keys" };

// No loading.tsx: see review/page.tsx (a streamed shell would turn redirects into 200 responses).
export default async function KeysPage({ params }: { params: Promise<{ projectId: string }> }) {
  const { projectId } = await params;
  const { user, project } = await requireProjectMember(projectId, `/projects/${encodeURIComponent(projectId)}/keys`);
  return (
    <PortalShell user={user} project={project}>
      {isProjectAdmin(project) ? (
        <ApiKeysPage projectId={project.id} projectName={project.name} />
      ) : (
        <NotAllowed what="Only project admins manage API keys." />
      )}
    </PortalShell>
  );
}
