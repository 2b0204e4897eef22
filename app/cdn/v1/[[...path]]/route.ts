import { routeNotFound } from "@/lib/http/not-found";

// The CDN lands with its own issue; until then every CDN path answers 404 in the spec's error form.
export { routeNotFound as GET, routeNotFound as HEAD };
