import type { ReactNode } from "react";

export const metadata = { title: "Sieve", description: "Self-hosted media moderation and delivery" };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>{children}</body>
    </html>
  );
}
