import { serve } from "inngest/next";
import type { NextRequest } from "next/server";
import { inngest } from "@/inngest/client";
import { functions } from "@/inngest/functions";
import { offerServeHandler } from "@/lib/executor/in-process";

// Inngest (Cloud, self-hosted, or our embedded executor) calls this endpoint; requests are signed.
export const dynamic = "force-dynamic";
export const { GET, POST, PUT } = serve({ client: inngest, functions });
// The embedded executor, when it runs in this process, calls POST directly (no loopback HTTP).
// The adapter reads only headers, url and text() of the request (inngest/next.js).
offerServeHandler((request) => POST(request as NextRequest, undefined));
