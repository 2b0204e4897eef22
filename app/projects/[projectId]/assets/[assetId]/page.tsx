import type { Metadata } from "next";
import { AssetDetailView } from "@/components/assets/asset-detail";
import { PortalShell } from "@/components/portal/portal-header";
import { requireProjectMember } from "@/lib/portal/session";

export const metadata: Metadata = { title: "Asset" };

// No loading.tsx here either: see the review page (redirect/notFound must not follow a streamed shell).
export default async function AssetPage({ params }: { params: Promise<{ projectId: string; assetId: string }> }) {
  const { projectId, assetId } = await params;
  const { user, project } = await requireProjectMember(
    projectId,
    `/projects/${encodeURIComponent(projectId)}/assets/${encodeURIComponent(assetId)}`,
  );
  return (
    <PortalShell user={user} project={project}>
      {/* Keyed by asset: moving to a child or parent starts blurred again, whatever was revealed here. */}
      <AssetDetailView key={assetId} projectId={project.id} assetId={assetId} canReview={project.permissions.includes("assets:review")} />
    </PortalShell>
  );
}
