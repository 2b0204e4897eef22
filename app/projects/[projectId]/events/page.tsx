import type { Metadata } from "next";
import { EventInbox } from "@/components/events/event-inbox";
import { PortalShell } from "@/components/portal/portal-header";
import { NotAllowed } from "@/components/portal/ui";
import { requireProjectMember } from "@/lib/portal/session";

export const metadata: Metadata = { title: "Events" };

/* No loading.tsx (see review/page.tsx): the inbox shows its own loading state while it fetches. */
export default async function EventsPage({ params }: { params: Promise<{ projectId: string }> }) {
  const { projectId } = await params;
  const { user, project } = await requireProjectMember(projectId, `/projects/${encodeURIComponent(projectId)}/events`);
  return (
    <PortalShell user={user} project={project}>
      {project.permissions.includes("events:read") ? (
        <EventInbox projectId={project.id} canMark={project.permissions.includes("events:write")} />
      ) : (
        <NotAllowed what="Reading the project's events needs the events:read permission." />
      )}
    </PortalShell>
  );
}
