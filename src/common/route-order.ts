import type { INestApplication } from '@nestjs/common';

interface Layer {
  route?: { path: string };
}

/**
 * Sets the order in which Express tries the application's routes, once it is initialised (the
 * order in which Nest registers modules' routes is not one we choose):
 * - the API's first: it is the hot path, and Express tries every route before it in turn, the
 *   dashboard's and the email links' included;
 * - the public site's last: they begin with a parameter (`/:workspace/…`, a workspace's slug),
 *   so they would match `/api/v1/posts` or `/assets/x` too.
 * Only routes between the same two middleware layers trade places: each middleware layer (a
 * static handler, Nest's not-found handler last) keeps the routes it came before and after.
 */
export function orderRoutes(app: INestApplication): void {
  const router = app.getHttpAdapter().getInstance().router as { stack: Layer[] };
  const rank = (layer: Layer) => (layer.route!.path.startsWith('/api/') ? 0 : layer.route!.path.startsWith('/:workspace') ? 2 : 1);
  const stack: Layer[] = [];
  let routes: Layer[] = [];
  const flush = () => stack.push(...routes.sort((a, b) => rank(a) - rank(b)));
  for (const layer of router.stack) {
    if (layer.route) {
      routes.push(layer);
      continue;
    }
    flush();
    routes = [];
    stack.push(layer);
  }
  flush();
  router.stack = stack;
}
