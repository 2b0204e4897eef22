import type { Metadata } from "next";
import Link from "next/link";
import type { ReactNode } from "react";
import { AcceptInvitationForm, SignUpForm } from "@/components/members/invitation-forms";
import { ROLE_LABELS } from "@/components/members/roles";
import { buttonClass } from "@/components/portal/styles";
import { invitationForPage, MIN_PASSWORD_LENGTH } from "@/lib/portal/invitation-actions";
import { currentPortalUser } from "@/lib/portal/session";
import { acceptInvitationAction, signUpWithInvitationAction } from "./actions";

export const metadata: Metadata = { title: "Invitation" };

const UNUSABLE = {
  expired: "This invitation has expired. Ask a project admin for a new link.",
  accepted: "This invitation was already used. Each link lets one person join; ask a project admin for a new one.",
  revoked: "This invitation was revoked by a project admin. Ask them for a new link if you still need access.",
} as const;

function Card({ title, children }: { title: string; children: ReactNode }) {
  return (
    <main id="main" className="flex min-h-screen items-center justify-center px-4 py-12">
      <div className="w-full max-w-md rounded-lg border border-slate-300 bg-white p-6 shadow-sm">
        <p className="text-lg font-bold tracking-tight text-slate-900">Sieve</p>
        <h1 className="mt-1 mb-4 text-2xl font-semibold text-slate-900">{title}</h1>
        {children}
      </div>
    </main>
  );
}

export default async function InvitePage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const [invitation, user] = await Promise.all([invitationForPage(token), currentPortalUser()]);
  if (!invitation || invitation.state !== "open") {
    return (
      <Card title="This invitation cannot be used">
        <p role="alert" data-testid="invitation-unusable" className="text-sm text-slate-800">
          {invitation ? UNUSABLE[invitation.state as keyof typeof UNUSABLE] : "This invitation link is not valid. Check that you copied the whole link."}
        </p>
        <Link href={user ? "/projects" : "/login"} className={buttonClass("secondary", "mt-4")}>
          {user ? "Go to your projects" : "Sign in"}
        </Link>
      </Card>
    );
  }
  const role = ROLE_LABELS[invitation.role];
  const summary = (
    <p className="mb-4 text-sm text-slate-800">
      {invitation.invitedByName} invited you to join <strong>{invitation.projectName}</strong> as <strong>{role}</strong>
      {invitation.role === "custom" ? ` (${invitation.permissions.join(", ")})` : ""}.
    </p>
  );
  if (user) {
    return (
      <Card title={`Join ${invitation.projectName}`}>
        {summary}
        <p className="mb-4 text-sm text-slate-700">You are signed in as {user.name ? `${user.name} (${user.email})` : user.email}.</p>
        <AcceptInvitationForm action={acceptInvitationAction.bind(null, token)} projectName={invitation.projectName} />
      </Card>
    );
  }
  const callbackUrl = `/invite/${encodeURIComponent(token)}`;
  return (
    <Card title={`Join ${invitation.projectName}`}>
      {summary}
      <p className="mb-4 text-sm text-slate-800">
        Have an account?{" "}
        <Link href={`/login?callbackUrl=${encodeURIComponent(callbackUrl)}`} className="font-medium text-blue-800 underline">
          Sign in to accept
        </Link>
      </p>
      <h2 className="mb-2 text-lg font-semibold text-slate-900">New to Sieve? Create your account</h2>
      <SignUpForm action={signUpWithInvitationAction.bind(null, token)} minPasswordLength={MIN_PASSWORD_LENGTH} />
    </Card>
  );
}
