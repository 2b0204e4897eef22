"use client";

import { useId, useState, type FormEvent } from "react";
import { buttonClass } from "@/components/portal/styles";
import { explainError, ROOT, subtreeIds, type FolderNode } from "./folder-model";
import { FolderPicker } from "./folder-picker";
import { FormButtons } from "./form-buttons";
import { useCreateFolder, useDeleteFolder, useMoveFolder, useRenameFolder } from "./hooks";
import { NameForm } from "./name-form";

type Mode = "create" | "rename" | "move" | "delete" | null;

interface ActionsProps {
  projectId: string;
  /** The chosen folder; null when the project root is chosen. */
  node: FolderNode | null;
  options: { id: string; label: string }[];
  onDone: (message: string, select?: string) => void;
}

/** Create, rename, move and delete for the chosen folder, as small inline forms. */
export function FolderActions({ projectId, node, options, onDone }: ActionsProps) {
  const [mode, setMode] = useState<Mode>(null);
  const [destination, setDestination] = useState("");
  const create = useCreateFolder(projectId);
  const rename = useRenameFolder(projectId);
  const move = useMoveFolder(projectId);
  const remove = useDeleteFolder(projectId);
  const pickerId = useId();
  const folder = node?.folder ?? null;
  const where = folder ? `in “${folder.name}”` : "at the project root";

  const open = (next: Mode) => {
    for (const mutation of [create, rename, move, remove]) mutation.reset();
    setDestination("");
    setMode(next === mode ? null : next);
  };
  const finish = (message: string, select?: string) => {
    setMode(null);
    onDone(message, select);
  };
  /**
   * Runs a change and reports it through the page (onDone) once done. Not mutate()'s own onSuccess:
   * the hooks wait for the folder list to refetch first, and a deleted folder's actions panel is
   * unmounted by then, which drops mutate()'s callbacks. A failure shows through the mutation's error.
   */
  const after = <T,>(change: Promise<T>, done: (result: T) => void) => void change.then(done, () => undefined);
  const error = (mutation: { error: unknown }) => (mutation.error ? explainError(mutation.error) : null);

  const submitMove = (event: FormEvent) => {
    event.preventDefault();
    if (!folder || !destination) return;
    const parentId = destination === ROOT ? null : destination;
    after(move.mutateAsync({ id: folder.id, parentId }), () => finish(`Moved “${folder.name}” to ${options.find((o) => o.id === destination)?.label ?? "the project root"}.`));
  };

  return (
    <section aria-label="Folder actions" className="space-y-3 rounded-lg border border-slate-300 bg-white p-4" data-testid="folder-actions">
      <div className="flex flex-wrap gap-2">
        <button type="button" className={buttonClass("primary")} aria-expanded={mode === "create"} onClick={() => open("create")}>
          New folder
        </button>
        {folder ? (
          <>
            <button type="button" className={buttonClass("secondary")} aria-expanded={mode === "rename"} onClick={() => open("rename")}>
              Rename
            </button>
            <button type="button" className={buttonClass("secondary")} aria-expanded={mode === "move"} onClick={() => open("move")}>
              Move folder to…
            </button>
            <button type="button" className={buttonClass("secondary")} aria-expanded={mode === "delete"} onClick={() => open("delete")}>
              Delete
            </button>
          </>
        ) : null}
      </div>

      {mode === "create" ? (
        <NameForm
          label={`Name of the new folder ${where}`}
          submitLabel="Create folder"
          pending={create.isPending}
          error={error(create)}
          onCancel={() => setMode(null)}
          onSubmit={(name) => after(create.mutateAsync({ name, parentId: folder?.id ?? null }), (made) => finish(`Created “${made.name}” ${where}.`))}
        />
      ) : null}
      {mode === "rename" && folder ? (
        <NameForm
          label={`New name for “${folder.name}”`}
          submitLabel="Save name"
          initial={folder.name}
          pending={rename.isPending}
          error={error(rename)}
          onCancel={() => setMode(null)}
          onSubmit={(name) => after(rename.mutateAsync({ id: folder.id, name }), (saved) => finish(`Renamed to “${saved.name}”.`))}
        />
      ) : null}
      {mode === "move" && node && folder ? (
        <form onSubmit={submitMove} className="space-y-2">
          <FolderPicker id={pickerId} label={`Move “${folder.name}” into`} value={destination} options={options} exclude={subtreeIds(node)} onChange={setDestination} />
          <p className="text-xs text-slate-700">
            “{folder.name}” and its subfolders are not offered: a folder cannot be moved into itself or one of its subfolders.
            A folder with the same name must not already be in the destination.
          </p>
          {error(move) ? <p role="alert" className="text-sm text-red-800">{error(move)}</p> : null}
          <FormButtons label="Move folder" pendingLabel="Moving…" pending={move.isPending} disabled={!destination} onCancel={() => setMode(null)} />
        </form>
      ) : null}
      {mode === "delete" && folder ? (
        <div className="space-y-2" role="group" aria-label="Confirm delete">
          <p className="text-sm text-slate-900">
            Delete “{folder.name}”? Only an empty folder can be deleted (no subfolders, no assets).
          </p>
          {error(remove) ? <p role="alert" className="text-sm text-red-800">{error(remove)}</p> : null}
          <FormButtons
            label="Delete folder"
            pendingLabel="Deleting…"
            pending={remove.isPending}
            danger
            onConfirm={() => after(remove.mutateAsync(folder.id), () => finish(`Deleted “${folder.name}”.`, folder.parentId ?? ROOT))}
            onCancel={() => setMode(null)}
          />
        </div>
      ) : null}
    </section>
  );
}
