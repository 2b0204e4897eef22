"use client";

import { useState, type DragEvent, type ReactNode } from "react";
import { FOLDER_TYPE, isOurDrag, readDrop, type Dropped } from "./drag";
import { ROOT, ROOT_LABEL, type FolderNode } from "./folder-model";

interface TreeProps {
  nodes: FolderNode[];
  selected: string;
  canWrite: boolean;
  onSelect: (id: string) => void;
  /** Something was dropped on a folder (or on the root: ROOT). */
  onDrop: (target: string, dropped: Dropped) => void;
}

/** Drawn, not an emoji: the browser may have no emoji font. Decorative (the name is the label). */
function Icon({ kind }: { kind: "folder" | "root" }) {
  const path =
    kind === "folder"
      ? "M2 5.5A1.5 1.5 0 0 1 3.5 4h4l1.5 2h7.5A1.5 1.5 0 0 1 18 7.5v7a1.5 1.5 0 0 1-1.5 1.5h-13A1.5 1.5 0 0 1 2 14.5z"
      : "M3 9.5 10 4l7 5.5V16a1 1 0 0 1-1 1h-4v-4H8v4H4a1 1 0 0 1-1-1z";
  return (
    <svg aria-hidden="true" viewBox="0 0 20 20" className="size-4 shrink-0 fill-none stroke-current stroke-[1.5] text-slate-600">
      <path d={path} strokeLinejoin="round" />
    </svg>
  );
}

/** A place in the tree that can be chosen, and (for writers) dropped on. */
function TreeButton({ id, selected, canWrite, onSelect, onDrop, draggable, children }: Omit<TreeProps, "nodes"> & { id: string; draggable: boolean; children: ReactNode }) {
  const [over, setOver] = useState(false);
  const current = selected === id;
  const accept = (event: DragEvent) => {
    if (!canWrite || !isOurDrag(event.dataTransfer)) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = "move";
    setOver(true);
  };
  return (
    <button
      type="button"
      data-testid="folder-tree-item"
      data-folder-id={id}
      aria-current={current ? "true" : undefined}
      draggable={draggable && canWrite}
      onClick={() => onSelect(id)}
      onDragStart={(event) => {
        event.dataTransfer.setData(FOLDER_TYPE, id);
        event.dataTransfer.effectAllowed = "move";
      }}
      onDragOver={accept}
      onDragEnter={accept}
      onDragLeave={() => setOver(false)}
      onDrop={(event) => {
        setOver(false);
        const dropped = canWrite ? readDrop(event.dataTransfer) : null;
        if (!dropped) return;
        event.preventDefault();
        onDrop(id, dropped);
      }}
      className={`flex min-h-9 w-full min-w-0 items-center gap-2 rounded-md px-2 text-left text-sm ${
        current ? "bg-blue-50 font-semibold text-blue-900" : "text-slate-900 hover:bg-slate-100"
      } ${over ? "outline-2 outline-offset-[-2px] outline-blue-700 outline-dashed" : ""}`}
    >
      {children}
    </button>
  );
}

function Branches({ nodes, ...props }: TreeProps) {
  if (nodes.length === 0) return null;
  return (
    <ul>
      {nodes.map((node) => (
        <Branch key={node.folder.id} node={node} {...props} />
      ))}
    </ul>
  );
}

function Branch({ node, ...props }: Omit<TreeProps, "nodes"> & { node: FolderNode }) {
  const [open, setOpen] = useState(true);
  const { folder, children } = node;
  return (
    <li>
      <div className="flex items-center" style={{ paddingLeft: `${node.depth * 1}rem` }}>
        {children.length > 0 ? (
          <button
            type="button"
            aria-expanded={open}
            aria-label={`${open ? "Collapse" : "Expand"} ${folder.name}`}
            className="inline-flex size-8 shrink-0 items-center justify-center rounded text-slate-700 hover:bg-slate-100"
            onClick={() => setOpen(!open)}
          >
            <span aria-hidden="true">{open ? "▾" : "▸"}</span>
          </button>
        ) : (
          <span className="size-8 shrink-0" aria-hidden="true" />
        )}
        <TreeButton id={folder.id} draggable {...props}>
          <Icon kind="folder" />
          <span className="truncate">{folder.name}</span>
        </TreeButton>
      </div>
      {open ? <Branches nodes={children} {...props} /> : null}
    </li>
  );
}

/**
 * The folder tree: a list of buttons (choose a folder), each a drop target for dragged assets and
 * folders. Keyboard users move things with the "Move to…" forms instead.
 */
export function FolderTree({ nodes, ...props }: TreeProps) {
  return (
    <nav aria-label="Folder tree" data-testid="folder-tree">
      <ul className="space-y-0.5">
        <li>
          <TreeButton id={ROOT} draggable={false} {...props}>
            <Icon kind="root" />
            <span className="truncate">{ROOT_LABEL}</span>
          </TreeButton>
          <Branches nodes={nodes} {...props} />
        </li>
      </ul>
    </nav>
  );
}

