/**
 * The architecture as rules (run by `npm test` as "dependency rules"; README "Architecture" draws it).
 * Imports point one way, bottom to top:
 *
 *   core → platform → API shell → domains → engines/workflows → entry points
 *
 *   core       lib/core                                  errors, ids, zod primitives, streams, config,
 *                                                        worker host, process singletons
 *   platform   lib/{db,storage,net,media,executor,jobs,server}
 *   shell      lib/{http,auth}                           the request wrapper; authentication and the
 *                                                        one authorisation module
 *   domains    lib/{events,usage,projects,folders,lenses,assets,cdn,connectors}
 *   engines    lib/moderation                            classifiers, policy, the pipeline's analysis
 *                                                        and decision
 *   entry      app, components, inngest, server.ts, scripts, lib/{openapi,admin,portal}
 *   client     lib/client                                the typed API client generated from the
 *                                                        OpenAPI document; stands alone
 *
 * The test tests/unit/architecture.test.ts runs these rules on fixtures that break each one.
 */
const CORE = "^lib/core/";
const PLATFORM = "^lib/(db|storage|net|media|executor|jobs|server)/";
const SHELL = "^lib/(http|auth)/";
const DOMAINS = "^lib/(events|usage|projects|folders|lenses|assets|cdn|connectors)/";
const ENGINES = "^lib/moderation/";
const COMPOSITION = "^lib/(openapi|admin|portal)/";
const ENTRY = "^(app|components|inngest|scripts)/|^server\\.ts$";
// inngest/client.ts is the job runner's client, reached from lib/ only through lib/jobs (rule below).
const ABOVE_PLATFORM = [SHELL, DOMAINS, ENGINES, COMPOSITION, "^(app|components|scripts|inngest/functions)/|^server\\.ts$"];

const layer = (name, comment, from, forbidden) => ({ name, comment, severity: "error", from: { path: from }, to: { path: forbidden } });

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "No import cycles, type-only imports included.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    layer("core-is-neutral", "lib/core imports nothing of the project but lib/core.", CORE, "^(lib/(?!core/)|app/|components/|inngest/|scripts/|server\\.ts$)"),
    layer("platform-knows-no-domain", "Platform modules never import the API shell, a domain, an engine or an entry point.", PLATFORM, ABOVE_PLATFORM),
    layer("shell-knows-no-domain", "The API shell (lib/http, lib/auth) never imports a domain, an engine or an entry point.", SHELL, [DOMAINS, ENGINES, COMPOSITION, ENTRY]),
    layer("auth-below-http", "Authentication and authorisation do not depend on the HTTP wrapper (the portal uses them too).", "^lib/auth/", "^lib/http/"),
    layer("domains-below-engines", "Domains never import an engine or workflow (moderation) or an entry point: assets publishes jobs, moderation consumes them.", DOMAINS, [ENGINES, COMPOSITION, ENTRY]),
    {
      name: "domain-logic-knows-no-http",
      comment: "Inside a domain only the request adapters (endpoint declarations, schemas, upload entry points) use the HTTP shell; domain logic is plain functions.",
      severity: "error",
      from: { path: DOMAINS, pathNot: "/(endpoints|schemas|create|inline-content)\\.ts$" },
      to: { path: "^lib/http/" },
    },
    layer("engines-below-entry", "Engines never import an entry point or a composition module.", ENGINES, [COMPOSITION, ENTRY]),
    layer("composition-below-entry", "lib/openapi and lib/admin are used by entry points, never the other way round.", COMPOSITION, ENTRY),
    // Domains among themselves: events ← usage ← projects; events ← folders ← assets; lenses stands
    // alone; the CDN reads assets and lenses, and nothing below the entry points reads the CDN.
    // Connectors read events (they deliver them); no other domain knows connectors.
    layer("domain-order-events", "Events are recorded by every domain and know none.", "^lib/events/", "^lib/(usage|projects|folders|lenses|assets|cdn|connectors)/"),
    layer("domain-order-usage", "Usage (the allowance) knows only events.", "^lib/usage/", "^lib/(projects|folders|lenses|assets|cdn|connectors)/"),
    layer("domain-order-projects", "Projects know usage and events.", "^lib/projects/", "^lib/(folders|lenses|assets|cdn|connectors)/"),
    layer("domain-order-folders", "Folders know events, not assets.", "^lib/folders/", "^lib/(usage|projects|lenses|assets|cdn|connectors)/"),
    layer("domain-order-lenses", "Lenses are definitions only.", "^lib/lenses/", "^lib/(events|usage|projects|folders|assets|cdn|connectors)/"),
    layer("domain-order-assets", "Assets never read the CDN or connectors: both read what assets record.", "^lib/assets/", "^lib/(cdn|connectors)/"),
    layer("domain-order-connectors", "Connectors deliver events and know no other domain.", "^lib/connectors/", "^lib/(usage|projects|folders|lenses|assets|cdn)/"),
    layer("engines-know-no-cdn", "Moderation never reaches the CDN or connectors.", ENGINES, "^lib/(cdn|connectors)/"),
    {
      name: "engines-use-assets-public-surface",
      comment:
        "Moderation reaches assets only through lib/assets/processing (the hand-off and the outcome API), its schemas, storage keys and the copies it leaves for labelling.",
      severity: "error",
      from: { path: ENGINES },
      to: { path: "^lib/assets/", pathNot: "^lib/assets/(processing/|schemas\\.ts$|storage-keys\\.ts$|labels/sources\\.ts$)" },
    },
    {
      name: "only-jobs-sends-to-inngest",
      comment: "Inside lib/, only lib/jobs/client.ts imports the Inngest client; nothing in lib/ imports inngest/ functions.",
      severity: "error",
      from: { path: "^lib/", pathNot: "^lib/jobs/client\\.ts$" },
      to: { path: "^inngest/" },
    },
    {
      name: "entry-points-use-domains-not-db",
      comment: "Routes, pages, components and Inngest functions call domain functions; they never query lib/db directly.",
      severity: "error",
      from: { path: "^(app|components|inngest)/" },
      to: { path: "^lib/db/" },
    },
    {
      name: "entry-points-authorise-through-auth",
      comment: "Pages, server actions, components and routes never reach credential internals: they authorise through handle() or lib/auth/authorize.",
      severity: "error",
      from: { path: "^(app|components)/" },
      to: { path: "^lib/auth/", pathNot: "^lib/auth/(authorize|permissions|types)\\.ts$" },
    },
    {
      name: "client-stands-alone",
      comment: "The typed API client (lib/client) is generated from the OpenAPI document and imports nothing else of the project, so an outside program can use it as it is.",
      severity: "error",
      from: { path: "^lib/client/" },
      to: { path: "^(lib/(?!client/)|app/|components/|inngest/|scripts/|server\\.ts$)" },
    },
    {
      name: "not-to-tests",
      comment: "Production code never imports test support.",
      severity: "error",
      from: { path: "^(lib|app|components|inngest|scripts)/|^server\\.ts$", pathNot: "\\.test\\.tsx?$" },
      to: { path: "^(tests|bench|e2e)/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)(node_modules|\\.next|lib/db/generated)/|\\.test\\.tsx?$|^tests/fixtures/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default", "types"], extensions: [".ts", ".tsx", ".js", ".mjs", ".cjs", ".json"] },
  },
};
