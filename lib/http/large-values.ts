/**
 * Large values of JSON bodies (lib/http/json-reader.ts): which fields of a body schema may hold
 * them, and how their bytes reach the validated body. A domain declares the fields with
 * allowLargeValues(); the reader leaves `""` / `[]` in their place, and after validation
 * restoreLargeValues() attaches the bytes to the object holding the placeholder, where
 * largeValueAt() finds them (lib/assets/inline-content.ts).
 */

/** Object keys from the root, e.g. `["content", "base64"]`. */
export type LargeValuePath = readonly string[];

export interface PathNode {
  large: boolean;
  children: Map<string, PathNode>;
}

const largeValuesBySchema = new WeakMap<object, PathNode>();

/** Declares where a body schema carries content that may be large (those fields must accept `""` / `[]`). */
export function allowLargeValues(schema: object, paths: readonly LargeValuePath[]): void {
  largeValuesBySchema.set(schema, pathTree(paths));
}

export function largeValuesOf(schema: object): PathNode | null {
  return largeValuesBySchema.get(schema) ?? null;
}

export function pathTree(paths: readonly LargeValuePath[]): PathNode {
  const root: PathNode = { large: false, children: new Map() };
  for (const path of paths) {
    let node = root;
    for (const key of path) {
      let child = node.children.get(key);
      if (!child) node.children.set(key, (child = { large: false, children: new Map() }));
      node = child;
    }
    node.large = true;
  }
  return root;
}

/** A large value's bytes: a string's UTF-8 bytes (as `Buffer.from(string)` gives), or a byte array's bytes. */
export interface LargeValue {
  kind: "string" | "bytes";
  bytes: Buffer;
}

export interface LargeValueAt extends LargeValue {
  path: LargeValuePath;
}

const LARGE_VALUES = Symbol("sieve.largeValues");
type Holder = Record<string | symbol, unknown>;

/** Attaches each large value to the object that holds its placeholder in the validated body. */
export function restoreLargeValues(value: unknown, largeValues: readonly LargeValueAt[]): void {
  for (const large of largeValues) {
    let holder = value;
    for (const key of large.path.slice(0, -1)) holder = isObject(holder) ? holder[key] : undefined;
    const key = large.path[large.path.length - 1] as string;
    const placeholder = isObject(holder) ? holder[key] : undefined;
    const intact = large.kind === "string" ? placeholder === "" : Array.isArray(placeholder) && placeholder.length === 0;
    if (!isObject(holder) || !intact) throw new Error(`The large value at ${large.path.join(".")} lost its placeholder in validation.`);
    if (!(LARGE_VALUES in holder)) Object.defineProperty(holder, LARGE_VALUES, { value: new Map<string, LargeValue>() });
    (holder[LARGE_VALUES] as Map<string, LargeValue>).set(key, { kind: large.kind, bytes: large.bytes });
  }
}

/** The large value read aside for `holder[key]` (whose own value is then only its placeholder). */
export function largeValueAt(holder: object, key: string): LargeValue | undefined {
  return (holder as Holder)[LARGE_VALUES] instanceof Map ? ((holder as Holder)[LARGE_VALUES] as Map<string, LargeValue>).get(key) : undefined;
}

function isObject(value: unknown): value is Holder {
  return typeof value === "object" && value !== null;
}
