import type { Metadata } from "next";
import { LensesPage } from "@/components/lenses/lenses-page";
import { PortalShell } from "@/components/portal/portal-header";
import { requireProjectMember } from "@/lib/portal/session";

export const metadata: Metadata = { title: "Lenses" };

/* No loading.tsx (see review/page.tsx). Every member reads lenses; lenses:write changes them. */
export default async function LensesRoute({ params }: { params: Promise<{ projectId: string }> }) {
  const { projectId } = await params;
  const { user, project } = await requireProjectMember(projectId, `/projects/${encodeURIComponent(projectId)}/lenses`);
  return (
    <PortalShell user={user} project={project}>
      <LensesPage projectId={project.id} canWrite={project.permissions.includes("lenses:write")} />
    </PortalShell>
  );
}
