"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useId, useState } from "react";
import type { PortalProject } from "@/lib/portal/types";
import { meKey } from "./hooks";
import { errorMessage, portalFetch } from "./portal-fetch";
import { buttonClass, inputClass, labelClass } from "./styles";

/** Creates a project owned by the signed-in owner, then opens its API keys page (a new project has none). */
export function NewProjectForm() {
  const router = useRouter();
  const queryClient = useQueryClient();
  const [name, setName] = useState("");
  const nameId = useId();
  const errorId = useId();
  const create = useMutation({
    mutationFn: (projectName: string) => portalFetch<PortalProject>("/api/portal/projects", { method: "POST", json: { name: projectName } }),
    onSuccess: async (project) => {
      await queryClient.invalidateQueries({ queryKey: meKey });
      router.push(`/projects/${project.id}/keys`);
    },
  });

  return (
    <form
      aria-labelledby={`${nameId}-heading`}
      className="rounded-lg border border-slate-300 bg-white p-4 shadow-sm"
      onSubmit={(event) => {
        event.preventDefault();
        create.mutate(name);
      }}
    >
      <h2 id={`${nameId}-heading`} className="text-lg font-semibold text-slate-900">
        New project
      </h2>
      <p className="mt-1 text-sm text-slate-700">You will own it and be its admin; its uploads count against your allowance.</p>
      <div className="mt-3 flex flex-wrap items-end gap-2">
        <div className="min-w-56 flex-1 space-y-1">
          <label htmlFor={nameId} className={labelClass}>
            Project name
          </label>
          <input
            id={nameId}
            className={inputClass}
            value={name}
            maxLength={100}
            required
            aria-invalid={create.isError || undefined}
            aria-describedby={create.isError ? errorId : undefined}
            onChange={(event) => setName(event.target.value)}
          />
        </div>
        <button type="submit" className={buttonClass("primary")} disabled={create.isPending || name.trim() === ""}>
          {create.isPending ? "Creating…" : "Create project"}
        </button>
      </div>
      {create.isError ? (
        <p id={errorId} role="alert" className="mt-2 text-sm text-red-800">
          {errorMessage(create.error)}
        </p>
      ) : null}
    </form>
  );
}
