"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import type { ReactNode } from "react";
import { isProjectAdmin, type Permission } from "@/lib/auth/permissions";
import type { PortalProject } from "@/lib/portal/types";

/** One page of a project, and who sees it in the navigation (the pages check again on the server). */
interface ProjectPage {
  segment: string;
  label: string;
  visible: (project: PortalProject) => boolean;
}

const can = (permission: Permission) => (project: PortalProject) => project.permissions.includes(permission);
const everyone = () => true;

export const PROJECT_PAGES: readonly ProjectPage[] = [
  { segment: "review", label: "Review queue", visible: everyone },
  { segment: "folders", label: "Folders", visible: can("assets:read") },
  { segment: "lenses", label: "Lenses", visible: everyone },
  { segment: "events", label: "Events", visible: can("events:read") },
  { segment: "connectors", label: "Connectors", visible: can("connectors:read") },
  { segment: "keys", label: "API keys", visible: isProjectAdmin },
  { segment: "members", label: "Members", visible: isProjectAdmin },
  { segment: "usage", label: "Usage", visible: everyone },
];

/**
 * The project's pages, under the header. `badges` adds a count beside a page's name (the events
 * inbox's unread count); the current page is marked with aria-current.
 */
export function ProjectNav({ project, badges = {} }: { project: PortalProject; badges?: Partial<Record<string, ReactNode>> }) {
  const pathname = usePathname();
  const base = `/projects/${project.id}`;
  return (
    <nav aria-label="Project pages" className="border-b border-slate-300 bg-white">
      <ul className="mx-auto flex max-w-7xl flex-wrap gap-x-1 px-4">
        {PROJECT_PAGES.filter((page) => page.visible(project)).map((page) => {
          const href = `${base}/${page.segment}`;
          const current = pathname === href || pathname.startsWith(`${href}/`);
          return (
            <li key={page.segment}>
              <Link
                href={href}
                aria-current={current ? "page" : undefined}
                data-testid={`nav-${page.segment}`}
                className={`inline-flex min-h-10 items-center gap-1.5 border-b-2 px-3 text-sm font-medium ${
                  current ? "border-blue-700 text-blue-800" : "border-transparent text-slate-700 hover:border-slate-400 hover:text-slate-900"
                }`}
              >
                {page.label}
                {badges[page.segment] ?? null}
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
