"use client";

import { useRouter } from "next/navigation";
import { useId, useState } from "react";
import { useMe } from "./hooks";

/**
 * Jumps to another project's review queue. A select plus a button rather than navigating on
 * change: arrowing through a closed select must not open one project after another (WCAG 3.2.2).
 */
export function ProjectSwitcher({ currentProjectId }: { currentProjectId?: string }) {
  const router = useRouter();
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
        if (selected && selected !== currentProjectId) router.push(`/projects/${selected}/review`);
      }}
    >
      <label htmlFor={id} className="text-sm font-medium text-white">
        Project
      </label>
      <select
        id={id}
        className="max-w-48 rounded-md border border-slate-500 bg-white px-2 py-1 text-sm text-slate-900"
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
