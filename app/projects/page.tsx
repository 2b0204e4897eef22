import type { Metadata } from "next";
import { NewProjectForm } from "@/components/portal/new-project-form";
import { PortalShell } from "@/components/portal/portal-header";
import { ProjectList } from "@/components/portal/project-list";
import { canCreateProjects } from "@/lib/portal/projects";
import { requirePortalUser } from "@/lib/portal/session";

export const metadata: Metadata = { title: "Projects" };

export default async function ProjectsPage() {
  const user = await requirePortalUser("/projects");
  const canCreate = await canCreateProjects(user.id);
  return (
    <PortalShell user={user}>
      <h1 className="mb-6 text-2xl font-semibold text-slate-900">Your projects</h1>
      <ProjectList />
      {canCreate ? (
        <div className="mt-8 max-w-xl">
          <NewProjectForm />
        </div>
      ) : null}
    </PortalShell>
  );
}
