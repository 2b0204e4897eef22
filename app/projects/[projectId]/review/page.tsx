import type { Metadata } from "next";
import { PortalShell } from "@/components/portal/portal-header";
import { ReviewQueue } from "@/components/review/review-queue";
import { requireProjectMember } from "@/lib/portal/session";

export const metadata: Metadata = { title: "Review queue" };

/*
 * No loading.tsx here on purpose: a streamed shell would turn requireProjectMember's redirect and
 * notFound() into a 200 response; the queue shows its own loading state while it fetches.
 */
export default async function ReviewPage({ params }: { params: Promise<{ projectId: string }> }) {
  const { projectId } = await params;
  const { user, project } = await requireProjectMember(projectId, `/projects/${encodeURIComponent(projectId)}/review`);
  return (
    <PortalShell user={user} project={project}>
      <ReviewQueue projectId={project.id} projectName={project.name} canReview={project.permissions.includes("assets:review")} />
    </PortalShell>
  );
}
