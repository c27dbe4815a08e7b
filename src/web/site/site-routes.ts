import type { INestApplication } from '@nestjs/common';

interface Layer {
  route?: { path: string };
}

/**
 * Moves the public site's routes after every other route of the application. They begin with
 * a parameter (`/:workspace/…`, a workspace's slug), so they would match `/api/v1/posts` or
 * `/assets/x` too; the order in which Nest registers modules' routes is not one we choose, so
 * the order that matters is set here, once the application is initialised. Middleware layers
 * (Nest's not-found handler last) keep their places.
 */
export function matchSiteRoutesLast(app: INestApplication): void {
  const router = app.getHttpAdapter().getInstance().router as { stack: Layer[] };
  const isSite = (layer: Layer) => layer.route?.path.startsWith('/:workspace') ?? false;
  const routes = router.stack.filter((layer) => layer.route);
  const ordered = [...routes.filter((l) => !isSite(l)), ...routes.filter(isSite)];
  let next = 0;
  router.stack = router.stack.map((layer) => (layer.route ? ordered[next++] : layer));
}
