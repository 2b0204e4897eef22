/** Class names shared by the portal's server and client components (no React, no "use client"). */
type ButtonVariant = "primary" | "secondary" | "approve" | "reject" | "ghost";

const VARIANTS: Record<ButtonVariant, string> = {
  primary: "bg-blue-700 text-white hover:bg-blue-800 border border-blue-700",
  secondary: "bg-white text-slate-900 hover:bg-slate-100 border border-slate-400",
  approve: "bg-green-700 text-white hover:bg-green-800 border border-green-700",
  reject: "bg-red-700 text-white hover:bg-red-800 border border-red-700",
  ghost: "bg-transparent text-blue-800 hover:bg-blue-50 border border-transparent underline-offset-2 hover:underline",
};

/** Class names for a button (or a link styled as one); sizes stay ≥ 36px high for touch targets. */
export function buttonClass(variant: ButtonVariant = "secondary", extra = ""): string {
  return [
    "inline-flex min-h-9 items-center justify-center gap-1.5 rounded-md px-3 py-1.5 text-sm font-medium",
    // Disabled looks neutral (not a paler green or red that still reads as clickable); the reason is shown beside it.
    "disabled:cursor-not-allowed disabled:border-slate-300 disabled:bg-slate-100 disabled:text-slate-600 disabled:no-underline",
    VARIANTS[variant],
    extra,
  ].join(" ");
}

export const inputClass =
  "block w-full rounded-md border border-slate-400 bg-white px-2.5 py-1.5 text-sm text-slate-900 placeholder:text-slate-600";

export const labelClass = "block text-sm font-medium text-slate-800";
