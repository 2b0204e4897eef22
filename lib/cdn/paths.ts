/**
 * CDN paths, relative to {cdn_url}: `/assets/:projectId/:assetIdentifier/(content|preview)[/selector]`.
 * The identifier is percent-decoded (an externalId may hold any character); the selector segment is
 * left raw for the selector parser.
 */
export interface CdnPath {
  projectId: string;
  assetIdentifier: string;
  resource: "content" | "preview";
  /** The raw selector segment (`@lens`, `imageTransform[...]`), if any. */
  selector: string | undefined;
}

const SHAPE = /^\/assets\/([^/]+)\/([^/]+)\/(content|preview)(?:\/([^/]+))?\/?$/;

export function parseCdnPath(path: string): CdnPath | null {
  const match = SHAPE.exec(path);
  if (!match) return null;
  let projectId: string;
  let assetIdentifier: string;
  try {
    projectId = decodeURIComponent(match[1]!);
    assetIdentifier = decodeURIComponent(match[2]!);
  } catch {
    return null;
  }
  return { projectId, assetIdentifier, resource: match[3] as "content" | "preview", selector: match[4] };
}

/** The path of a resource as this service writes it in URLs (signed URLs, previews). */
export function cdnPathOf(target: { projectId: string; assetIdentifier: string; resource: string; selector: string }): string {
  const base = `/assets/${encodeURIComponent(target.projectId)}/${encodeURIComponent(target.assetIdentifier)}/${target.resource}`;
  return target.selector ? `${base}/${encodeSelector(target.selector)}` : base;
}

/** Selectors keep their readable form: `[`, `]`, `=`, `,` and `@` are valid in a path segment. */
function encodeSelector(selector: string): string {
  return encodeURIComponent(selector).replace(/%5B/g, "[").replace(/%5D/g, "]").replace(/%3D/g, "=").replace(/%2C/g, ",").replace(/%40/g, "@");
}
