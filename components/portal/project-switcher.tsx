"use client";

import { usePathname, useRouter } from "next/navigation";
import { useId, useState } from "react";
import type { PortalProject } from "@/lib/portal/types";
import { useMe } from "./hooks";
import { PROJECT_PAGES } from "./project-nav";

/** The same console page in the other project when it may open it there (an asset page does not carry over). */
function samePageIn(project: PortalProject, pathname: string): string {
  const segment = pathname.split("/")[3];
  const page = PROJECT_PAGES.find((candidate) => candidate.segment === segment);
  return `/projects/${project.id}/${page && page.visible(project) ? page.segment : "review"}`;
}

/**
 * Jumps to the same page of another project (its review queue when that page is not for this role). A select plus a button rather than navigating on
 * change: arrowing through a closed select must not open one project after another (WCAG 3.2.2).
 */
export function ProjectSwitcher({ currentProjectId }: { currentProjectId?: string }) {
  const router = useRouter();
  const pathname = usePathname();
  const me = useMe();
  const id = useId();
  const [chosen, setChosen] = useState<string | null>(null);
  const projects = me.data?.projects ?? [];
  if (projects.length < 2) return null;
  const selected = chosen ?? currentProjectId ?? projects[0]?.id ?? "";

  return (
    <form
      className="flex items-center gap-2"
      onSubmit={(event) => {
        event.preventDefault();
        const target = projects.find((project) => project.id === selected);
        if (target && target.id !== currentProjectId) router.push(samePageIn(target, pathname));
      }}
    >
      <label htmlFor={id} className="text-sm font-medium text-white">
        Project
      </label>
      <select
        id={id}
        className="max-w-48 md:max-w-72 rounded-md border border-slate-500 bg-white px-2 py-1 text-sm text-slate-900"
        value={selected}
        onChange={(event) => setChosen(event.target.value)}
      >
        {projects.map((project) => (
          <option key={project.id} value={project.id}>
            {project.name}
          </option>
        ))}
      </select>
      <button type="submit" className="rounded-md border border-white px-2 py-1 text-sm font-medium text-white hover:bg-slate-700">
        Switch
      </button>
    </form>
  );
}
