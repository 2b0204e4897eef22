import { randomUUID } from "node:crypto";
import type { ApiResponse, TestProject } from "./support";
import { baseUrl } from "./support";

/** Portal users and sessions for HTTP tests: users made as the CLI makes them, sessions as sign-in makes them. */
export interface PortalUser {
  userId: string;
  email: string;
  name: string;
  cookie: string;
}

export async function portalUser(project: TestProject | null, role: "admin" | "member" | "viewer" | null, name = "Rita Reviewer"): Promise<PortalUser> {
  const { createUser } = await import("@/lib/admin/users");
  const email = `reviewer-${randomUUID()}@example.test`;
  const { userId } = await createUser({
    email,
    password: "correct horse battery",
    name,
    membership: project && role ? { projectId: project.projectId, role } : undefined,
  });
  return { userId, email, name, cookie: await sessionCookie(userId) };
}

export async function sessionCookie(userId: string): Promise<string> {
  const { createSession, SESSION_COOKIE } = await import("@/lib/auth/sessions");
  const session = await createSession(userId);
  return `${SESSION_COOKIE}=${session.token}`;
}

/** A request to /api/portal as the browser sends it: the session cookie, and Origin on writes. */
export async function portal<T = any>(
  cookie: string | null,
  method: string,
  path: string,
  options: { json?: unknown; headers?: Record<string, string> } = {},
): Promise<ApiResponse<T> & { bytes: Buffer }> {
  const headers: Record<string, string> = { ...(cookie ? { Cookie: cookie } : {}) };
  if (method !== "GET") headers.Origin = baseUrl;
  if (options.json !== undefined) headers["Content-Type"] = "application/json";
  Object.assign(headers, options.headers);
  const response = await fetch(`${baseUrl}/api/portal${path}`, {
    method,
    headers,
    body: options.json === undefined ? undefined : JSON.stringify(options.json),
    redirect: "manual",
  });
  const bytes = Buffer.from(await response.arrayBuffer());
  const text = bytes.toString("utf8");
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: response.status, headers: response.headers, body: body as T, text, bytes };
}

export const queueOf = async (cookie: string, projectId: string, query = "") => {
  const res = await portal(cookie, "GET", `/projects/${projectId}/queue${query ? `?${query}` : ""}`);
  if (res.status !== 200) throw new Error(`queue: ${res.status} ${res.text}`);
  return res.body as { items: { asset: Record<string, any>; reason: string; topCategory: any; previewUrl: string | null; contentUrl: string | null; canApprove: boolean }[]; nextCursor: string | null };
};
