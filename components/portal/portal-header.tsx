import Link from "next/link";
import type { ReactNode } from "react";
import { signOutAction } from "@/app/actions/session";
import type { PortalProject, PortalUser } from "@/lib/portal/types";
import { UnreadBadge } from "@/components/events/unread-badge";
import { ProjectNav } from "./project-nav";
import { ProjectSwitcher } from "./project-switcher";

/** The bar on every signed-in page: who is signed in, where they are, and the way out. */
export function PortalHeader({ user, project }: { user: PortalUser; project?: PortalProject }) {
  return (
    <header className="bg-slate-900 text-white">
      <div className="mx-auto flex max-w-7xl flex-wrap items-center gap-x-6 gap-y-2 px-4 py-3">
        <Link href="/projects" className="text-lg font-bold tracking-tight text-white">
          Sieve
        </Link>
        <nav aria-label="Portal" className="flex flex-wrap items-center gap-4 text-sm">
          <Link href="/projects" className="text-white underline-offset-2 hover:underline">
            Projects
          </Link>
          {project ? (
            <Link
              href={`/projects/${project.id}/review`}
              className="text-white underline-offset-2 hover:underline"
              data-testid="header-project"
            >
              {project.name}
            </Link>
          ) : null}
        </nav>
        <div className="ml-auto flex flex-wrap items-center gap-4">
          <ProjectSwitcher currentProjectId={project?.id} />
          <span className="text-sm text-slate-100" data-testid="header-user">
            {user.name ? (
              <>
                {user.name} <span className="text-slate-300">({user.email})</span>
              </>
            ) : (
              user.email
            )}
          </span>
          <form action={signOutAction}>
            <button
              type="submit"
              className="rounded-md border border-white px-3 py-1 text-sm font-medium text-white hover:bg-slate-700"
            >
              Sign out
            </button>
          </form>
        </div>
      </div>
    </header>
  );
}

/** Header, skip link and the main landmark shared by the signed-in pages. */
export function PortalShell({ user, project, children }: { user: PortalUser; project?: PortalProject; children: ReactNode }) {
  return (
    <>
      <a
        href="#main"
        className="sr-only focus:not-sr-only focus:absolute focus:left-2 focus:top-2 focus:z-50 focus:rounded focus:bg-white focus:px-3 focus:py-2 focus:text-blue-800"
      >
        Skip to content
      </a>
      <PortalHeader user={user} project={project} />
      {project ? (
        <ProjectNav
          project={project}
          badges={project.permissions.includes("events:read") ? { events: <UnreadBadge projectId={project.id} /> } : undefined}
        />
      ) : null}
      <main id="main" tabIndex={-1} className="mx-auto max-w-7xl px-4 py-6">
        {children}
      </main>
    </>
  );
}
