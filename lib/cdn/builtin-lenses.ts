import type { ImageTransformStep } from "@/lib/cdn/types";

/**
 * Lenses every project has without defining them (`projectId` null), for the common needs: a
 * square thumbnail, a web-sized image and a preview. A project's own lens of the same identifier
 * takes precedence (lib/cdn/lens-lookup.ts). Their `version` is part of the derived-cache key:
 * raise it whenever a definition here changes.
 */

export interface BuiltinLens {
  projectId: null;
  userId: null;
  identifier: string;
  version: number;
  name: string;
  description: string;
  type: "image";
  active: true;
  transforms: { type: "imageTransform"; options: ImageTransformStep }[];
}

function builtin(identifier: string, name: string, description: string, options: ImageTransformStep): BuiltinLens {
  return {
    projectId: null,
    userId: null,
    identifier,
    version: 1,
    name,
    description,
    type: "image",
    active: true,
    transforms: [{ type: "imageTransform", options }],
  };
}

export const BUILTIN_LENSES: readonly BuiltinLens[] = Object.freeze([
  builtin(
    "thumbnail",
    "Thumbnail",
    "A 256×256 WebP (quality 75), cropped to fill the square (fit cover).",
    { width: 256, height: 256, fit: "cover", format: "webp", quality: 75 },
  ),
  builtin(
    "web-optimised",
    "Web-optimised",
    "A WebP (quality 80) at most 1600 pixels wide, aspect ratio kept (fit inside).",
    { width: 1600, fit: "inside", format: "webp", quality: 80 },
  ),
  builtin(
    "preview",
    "Preview",
    "A WebP (quality 80) within 1024×1024, aspect ratio kept (fit inside).",
    { width: 1024, height: 1024, fit: "inside", format: "webp", quality: 80 },
  ),
]);

const BY_IDENTIFIER = new Map(BUILTIN_LENSES.map((lens) => [lens.identifier, lens]));

/** The built-in lens of this identifier, or undefined. */
export function builtinLens(identifier: string): BuiltinLens | undefined {
  return BY_IDENTIFIER.get(identifier);
}
