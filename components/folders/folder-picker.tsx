"use client";

import { Choice } from "./choice";
import { ROOT, ROOT_LABEL } from "./folder-model";

/** A destination chooser: the project root, then every folder as "Parent / Child", minus `exclude`. */
export function FolderPicker({
  id,
  label,
  value,
  options,
  exclude = new Set(),
  onChange,
}: {
  id: string;
  label: string;
  value: string;
  options: { id: string; label: string }[];
  exclude?: ReadonlySet<string>;
  onChange: (value: string) => void;
}) {
  // Folder ids are UUIDs, never integer-like keys, so the object keeps this order.
  const choices = { [ROOT]: ROOT_LABEL, ...Object.fromEntries(options.filter((option) => !exclude.has(option.id)).map((option) => [option.id, option.label])) };
  return <Choice id={id} label={label} value={value} any="Choose a folder…" choices={choices} onPick={onChange} />;
}
