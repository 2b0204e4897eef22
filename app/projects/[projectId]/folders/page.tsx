import type { Metadata } from "next";
import { FolderBrowser } from "@/components/folders/folder-browser";
import { PortalShell } from "@/components/portal/portal-header";
import { NotAllowed } from "@/components/portal/ui";
import { requireProjectMember } from "@/lib/portal/session";

export const metadata: Metadata = { title: "Folders" };

// No loading.tsx here either: see the review page (redirect/notFound must not follow a streamed shell).
export default async function FoldersPage({ params }: { params: Promise<{ projectId: string }> }) {
  const { projectId } = await params;
  const { user, project } = await requireProjectMember(projectId, `/projects/${encodeURIComponent(projectId)}/folders`);
  const canRead = project.permissions.includes("assets:read");
  return (
    <PortalShell user={user} project={project}>
      <div className="space-y-4">
        <h1 className="text-2xl font-semibold text-slate-900">Folders</h1>
        {canRead ? (
          <FolderBrowser projectId={project.id} canWrite={project.permissions.includes("assets:write")} role={project.role} />
        ) : (
          <NotAllowed what="Folders list the project's assets, which needs the “assets:read” permission." />
        )}
      </div>
    </PortalShell>
  );
}
