import type { ApiAsset } from "@/lib/assets/schemas";

type ImageLabels = NonNullable<ApiAsset["imageLabels"]>;

/** Swatches for the named colours (the labelling step's palette). */
const SWATCH: Record<string, string> = {
  red: "#dc2626", orange: "#ea580c", yellow: "#facc15", green: "#16a34a", blue: "#2563eb", purple: "#9333ea",
  pink: "#ec4899", brown: "#92400e", black: "#0f172a", white: "#ffffff", gray: "#94a3b8",
};

const percent = (n: number) => `${Math.round(n * 100)}%`;

/** What the labelling step saw in an image or a video's frames: a describer's sentence, objects, colours, faces. */
export function ImageLabelsView({ labels, type }: { labels: ImageLabels | null; type: ApiAsset["type"] }) {
  if (!labels) {
    return <p className="text-sm text-slate-800">Not labelled (yet): labels follow the decision by a few seconds.</p>;
  }
  const inVideo = type === "video" ? " (the most in one frame)" : "";
  return (
    <div className="space-y-3 text-sm text-slate-900" data-testid="image-labels">
      {labels.description ? (
        <div>
          <h3 className="font-medium">Description</h3>
          <p data-testid="image-description">{labels.description}</p>
        </div>
      ) : null}
      <div>
        <h3 className="font-medium">Objects</h3>
        {labels.objects.length === 0 ? (
          <p className="text-slate-800">No object the detector knows was found.</p>
        ) : (
          <ul className="mt-1 flex flex-wrap gap-2" aria-label="Detected objects">
            {labels.objects.map((o) => (
              <li key={o.label} className="rounded-full border border-slate-300 bg-slate-50 px-2 py-0.5">
                {o.label}
                {o.count > 1 ? ` ×${o.count}` : ""} <span className="text-slate-700">{percent(o.confidence)}</span>
              </li>
            ))}
          </ul>
        )}
      </div>
      <div>
        <h3 className="font-medium">Colours</h3>
        <ul className="mt-1 flex flex-wrap gap-3" aria-label="Dominant colours">
          {labels.colours.map((c) => (
            <li key={c.name} className="flex items-center gap-1">
              <span aria-hidden className="inline-block h-3 w-3 rounded-sm border border-slate-400" style={{ backgroundColor: SWATCH[c.name] ?? "transparent" }} />
              {c.name} <span className="text-slate-700">{percent(c.fraction)}</span>
            </li>
          ))}
        </ul>
      </div>
      <p>
        <span className="font-medium">Faces:</span> {labels.faces === 0 ? "none detected" : `${labels.faces}${inVideo}`}
      </p>
      <p className="text-xs text-slate-700">By {labels.model}. Labels help search; they never change a decision.</p>
    </div>
  );
}
