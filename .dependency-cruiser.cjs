/**
 * The layers of src/, checked by `npm run lint:layers` (dependency-cruiser) in `npm test` and CI.
 * docs/architecture.md explains them.
 *
 *   entry points   main.ts, worker.ts, cli.ts, app.ts, app.module.ts, core.module.ts, …, and
 *                  src/demo (the demo workspace that main.ts and the CLI set up)
 *   web            src/web: the public site and the dashboard, over the features
 *   features       every other folder of src/: posts, comments, boards, workspaces, auth, …
 *   bottom         src/database, src/config, src/common: they import no feature
 *
 * A feature's store (`<feature>/*.store.ts`) owns its tables: only its own folder imports it,
 * except the stores a feature offers the others (PUBLIC_STORES): the outbox core's, through which
 * every feature records events, enqueues deliveries and changes endpoints, and the SSO token uses
 * (spent by the site's sign-in). Which folder writes which table is checked by
 * test/architecture.spec.ts against docs/architecture.md.
 */
const BOTTOM = '^src/(database|config|common)/';
const WEB = '^src/web/';
const ENTRY = ['^src/[^/]+\\.ts$', '^src/demo/'];
const FEATURE = '^src/(?!(database|config|common|web|demo)/)[^/]+/';
const PUBLIC_STORES = ['^src/outbox/(events|deliveries|endpoints|quota)\\.store\\.ts$', '^src/workspaces/sso-token-uses\\.store\\.ts$'];

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import cycle, type-only imports included.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'bottom-imports-no-feature',
      severity: 'error',
      comment: 'database, config and common are the bottom layer: they import no feature, no page and no entry point.',
      from: { path: BOTTOM },
      to: { path: [FEATURE, WEB, ...ENTRY] },
    },
    {
      name: 'features-import-no-web',
      severity: 'error',
      comment: 'Features are under the pages: the site and the dashboard import them, never the other way.',
      from: { path: FEATURE },
      to: { path: [WEB, ...ENTRY] },
    },
    {
      name: 'only-the-app-imports-web',
      severity: 'error',
      comment: 'Nothing imports web but the entry points that serve it or set it up (app.module.ts, the CLI, the demo).',
      from: { path: '^src/', pathNot: [WEB, ...ENTRY] },
      to: { path: WEB },
    },
    {
      name: 'a-store-is-its-feature-s-own',
      severity: 'error',
      comment: "A store owns its tables: another feature goes through the owner's service.",
      from: { path: '^src/([^/]+)/' },
      to: { path: '^src/[^/]+/.*\\.store\\.ts$', pathNot: ['^src/$1/', ...PUBLIC_STORES] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^src/',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
