"use client";

import Link from "next/link";
import { useMe } from "./hooks";
import { PROJECT_PAGES } from "./project-nav";
import { EmptyState, ErrorState, Spinner } from "./ui";
import { buttonClass } from "./styles";

const ROLE_LABELS = { admin: "Admin", member: "Member", viewer: "Viewer", custom: "Custom role" } as const;

/** The projects the signed-in user belongs to, each with a way into its review queue and its other pages. */
export function ProjectList() {
  const me = useMe();
  if (me.isPending) return <Spinner label="Loading projects…" />;
  if (me.isError) return <ErrorState error={me.error} onRetry={() => void me.refetch()} title="Could not load your projects" />;
  const { projects } = me.data;
  if (projects.length === 0) {
    return (
      <EmptyState title="You are not a member of any project yet">
        Ask a project admin to add you; your projects will appear here.
      </EmptyState>
    );
  }
  return (
    <ul className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3" aria-label="Your projects">
      {projects.map((project) => (
        <li key={project.id} data-testid="project-card" data-project-id={project.id} className="flex flex-col rounded-lg border border-slate-300 bg-white p-4 shadow-sm">
          <h2 className="text-lg font-semibold text-slate-900">{project.name}</h2>
          <p className="mt-1 text-sm text-slate-700">Your role: {ROLE_LABELS[project.role]}</p>
          <div className="mt-4">
            <Link href={`/projects/${project.id}/review`} className={buttonClass("primary")}>
              Open review queue<span className="sr-only"> for {project.name}</span>
            </Link>
          </div>
          <ul className="mt-3 flex flex-wrap gap-x-3 gap-y-1 text-sm" aria-label={`Other pages of ${project.name}`}>
            {PROJECT_PAGES.filter((page) => page.segment !== "review" && page.visible(project)).map((page) => (
              <li key={page.segment}>
                <Link href={`/projects/${project.id}/${page.segment}`} className="text-blue-800 underline underline-offset-2 hover:text-blue-950">
                  {page.label}
                </Link>
              </li>
            ))}
          </ul>
        </li>
      ))}
    </ul>
  );
}
