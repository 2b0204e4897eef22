import type { Metadata } from "next";
import { MembersPage } from "@/components/members/members-page";
import { PortalShell } from "@/components/portal/portal-header";
import { NotAllowed } from "@/components/portal/ui";
import { isProjectAdmin } from "@/lib/auth/permissions";
import { requireProjectMember } from "@/lib/portal/session";

export const metadata: Metadata = { title: "Members" };

// No loading.tsx: see review/page.tsx (a streamed shell would turn redirects into 200 responses).
export default async function MembersRoute({ params }: { params: Promise<{ projectId: string }> }) {
  const { projectId } = await params;
  const { user, project } = await requireProjectMember(projectId, `/projects/${encodeURIComponent(projectId)}/members`);
  return (
    <PortalShell user={user} project={project}>
      {isProjectAdmin(project) ? (
        <MembersPage projectId={project.id} projectName={project.name} userId={user.id} />
      ) : (
        <NotAllowed what="Only project admins manage members and invitations." />
      )}
    </PortalShell>
  );
}
