"use client";

import { useQuery } from "@tanstack/react-query";
import { PortalFetchError } from "@/components/portal/portal-fetch";
import { ErrorState, Spinner } from "@/components/portal/ui";

/** Enough to judge a text; a multi-megabyte upload would only freeze the tab. */
const MAX_BYTES = 100_000;

async function fetchTextHead(url: string, signal: AbortSignal): Promise<{ text: string; truncated: boolean }> {
  // Range asks for the head only; a server that ignores it sends everything, cut below.
  const response = await fetch(url, { credentials: "same-origin", headers: { Range: `bytes=0-${MAX_BYTES - 1}` }, signal });
  if (!response.ok) throw new PortalFetchError(response.status, { message: `The text could not be loaded (${response.status}).` });
  const text = await response.text();
  const total = Number(response.headers.get("Content-Range")?.split("/")[1]);
  const truncated = text.length > MAX_BYTES || (Number.isFinite(total) && total > MAX_BYTES);
  return { text: text.slice(0, MAX_BYTES), truncated };
}

/** A text asset's own content (the stored text, read through its session-authorised media URL). */
export function TextContent({ url }: { url: string }) {
  const query = useQuery({ queryKey: ["portal", "text-content", url], queryFn: ({ signal }) => fetchTextHead(url, signal), staleTime: Infinity });
  if (query.isPending) return <Spinner label="Loading the text…" />;
  if (query.isError) return <ErrorState error={query.error} onRetry={() => void query.refetch()} title="Could not load the text" />;
  return (
    <div className="w-full space-y-2">
      <pre
        tabIndex={0}
        aria-label="Text content"
        data-testid="text-content"
        className="max-h-96 w-full overflow-auto whitespace-pre-wrap break-words p-3 font-sans text-sm text-slate-900"
      >
        {query.data.text}
      </pre>
      {query.data.truncated ? <p className="px-3 pb-2 text-xs text-slate-700">Showing the first {MAX_BYTES.toLocaleString()} bytes.</p> : null}
    </div>
  );
}
