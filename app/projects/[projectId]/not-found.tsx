import Link from "next/link";

/** A project (or asset) that does not exist or that the user is not a member of: the same answer for both. */
export default function ProjectNotFound() {
  return (
    <main id="main" className="mx-auto max-w-xl px-4 py-16">
      <p className="text-sm font-semibold text-slate-700">404</p>
      <h1 className="mt-1 text-2xl font-semibold text-slate-900">Not found</h1>
      <p className="mt-2 text-slate-800">
        This page could not be found. The project or asset does not exist, or you are not a member of its project.
      </p>
      <Link href="/projects" className="mt-6 inline-block rounded-md bg-blue-700 px-3 py-1.5 text-sm font-medium text-white hover:bg-blue-800">
        Back to your projects
      </Link>
    </main>
  );
}
