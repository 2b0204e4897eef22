import type { Metadata } from "next";
import type { ReactNode } from "react";
import { QueryProvider } from "@/components/portal/query-provider";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Sieve", template: "%s · Sieve" },
  description: "Self-hosted media moderation and delivery",
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body className="min-h-screen">
        <QueryProvider>{children}</QueryProvider>
      </body>
    </html>
  );
}
