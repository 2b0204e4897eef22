import Link from "next/link";
import { PortalShell } from "@/components/portal/portal-header";
import { buttonClass } from "@/components/portal/styles";
import { currentPortalUser } from "@/lib/portal/session";

/**
 * A project (or asset) that does not exist or that the user is not a member of: the same answer
 * for both, inside the usual header so the reviewer can switch project or sign out from here.
 */
export default async function ProjectNotFound() {
  const user = await currentPortalUser();
  const body = (
    <div className="mx-auto max-w-xl py-10">
      <p className="text-sm font-semibold text-slate-700">404</p>
      <h1 className="mt-1 text-2xl font-semibold text-slate-900">Not found</h1>
      <p className="mt-2 text-slate-800">
        This page could not be found. The project or asset does not exist, or you are not a member of its project.
      </p>
      <Link href="/projects" className={buttonClass("primary", "mt-6")}>
        Back to your projects
      </Link>
    </div>
  );
  return user ? (
    <PortalShell user={user}>{body}</PortalShell>
  ) : (
    <main id="main" className="px-4">
      {body}
    </main>
  );
}
