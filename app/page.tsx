import { redirect } from "next/navigation";
import { requirePortalUser } from "@/lib/portal/session";

/** The portal's front door: signed-in reviewers go to their projects, others to /login (by requirePortalUser). */
export default async function Home() {
  await requirePortalUser("/projects");
  redirect("/projects");
}
