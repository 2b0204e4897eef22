import type { PortalFolder } from "@/lib/portal/types";
import { PortalFetchError, errorMessage } from "@/components/portal/portal-fetch";

/** The project root in the page's state and the folder pickers (assets outside any folder). */
export const ROOT = "root";
export const ROOT_LABEL = "Project root (no folder)";

export interface FolderNode {
  folder: PortalFolder;
  children: FolderNode[];
  depth: number;
}

/** The folders as a tree, siblings by name; a folder whose parent is missing shows at the top. */
export function buildTree(folders: readonly PortalFolder[]): FolderNode[] {
  const ids = new Set(folders.map((f) => f.id));
  const byParent = new Map<string | null, PortalFolder[]>();
  for (const folder of folders) {
    const parent = folder.parentId && ids.has(folder.parentId) ? folder.parentId : null;
    byParent.set(parent, [...(byParent.get(parent) ?? []), folder]);
  }
  const build = (parentId: string | null, depth: number): FolderNode[] =>
    (byParent.get(parentId) ?? [])
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((folder) => ({ folder, depth, children: depth < 50 ? build(folder.id, depth + 1) : [] }));
  return build(null, 0);
}

/** Depth-first, with "Parent / Child" labels: the order and names of the folder pickers. */
export function flatten(nodes: readonly FolderNode[], prefix = ""): { id: string; label: string; node: FolderNode }[] {
  return nodes.flatMap((node) => {
    const label = prefix ? `${prefix} / ${node.folder.name}` : node.folder.name;
    return [{ id: node.folder.id, label, node }, ...flatten(node.children, label)];
  });
}

/** The folder and everything below it: not a place to move it to (the spec's parent-cycle rule). */
export function subtreeIds(node: FolderNode): Set<string> {
  return new Set([node.folder.id, ...node.children.flatMap((child) => [...subtreeIds(child)])]);
}

/** The spec's folder rules, said to a person; other errors keep the route's own message. */
const EXPLAINED: Record<string, string> = {
  "folder/duplicate-name": "Another folder in the same place already has this name. Folder names must be unique within their parent folder.",
  "folder/not-empty": "Only empty folders can be deleted. Move or delete its folders and assets first.",
  "folder/parent-cycle": "A folder cannot be moved into itself or into one of its own subfolders.",
  "folder/not-found": "This folder no longer exists; someone may have deleted it. The list has been refreshed.",
  "auth/insufficient-permissions": "Your role does not allow changing folders.",
  "asset/safety-held": "This asset is under a safety hold and cannot be moved.",
};

export function explainError(error: unknown): string {
  if (error instanceof PortalFetchError) {
    const explained = EXPLAINED[error.code];
    if (explained) return explained;
    if (error.code === "request/validation-failed") return `The name is not valid: ${error.message}`;
  }
  return errorMessage(error);
}

export const explainCode = (code: string, message: string) => EXPLAINED[code] ?? message;
