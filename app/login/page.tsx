import type { Metadata } from "next";
import { LoginForm } from "@/components/auth/login-form";
import { safeCallbackPath } from "@/lib/portal/sign-in-state";
import { signInWithPassword } from "./actions";

export const metadata: Metadata = { title: "Sign in" };

export default async function LoginPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  // Only a same-site path comes back as the landing place (no open redirect through sign-in).
  const callbackUrl = safeCallbackPath((await searchParams).callbackUrl);
  return (
    <main id="main" className="flex min-h-screen items-center justify-center px-4 py-12">
      <div className="w-full max-w-sm rounded-lg border border-slate-300 bg-white p-6 shadow-sm">
        <p className="text-lg font-bold tracking-tight text-slate-900">Sieve</p>
        <h1 className="mt-1 mb-6 text-2xl font-semibold text-slate-900">Sign in</h1>
        <LoginForm action={signInWithPassword} callbackUrl={callbackUrl} />
      </div>
    </main>
  );
}
