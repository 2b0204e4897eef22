import { serve } from "inngest/next";
import { inngest } from "@/inngest/client";
import { functions } from "@/inngest/functions";

// Inngest (Cloud, self-hosted, or our embedded executor) calls this endpoint; requests are signed.
export const dynamic = "force-dynamic";
export const { GET, POST, PUT } = serve({ client: inngest, functions });
