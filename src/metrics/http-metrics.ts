import type { Request, Response } from 'express';
import type { MetricsService } from './metrics.service';

/**
 * Counts and times a finished request by its route's pattern (`/api/v1/posts/:id`), never by its
 * path. Called by `observeRequests` as the answer is sent.
 */
export function recordHttpRequest(metrics: MetricsService, req: Request, res: Response, seconds: number): void {
  // A request that no controller route matched has no `req.route` (module middleware aside,
  // mounted as a catch-all `{/*splat}`; no controller route has a wildcard).
  const path: unknown = req.route?.path;
  const route = typeof path === 'string' && path && !path.includes('*') ? `${req.baseUrl}${path}` : 'unmatched';
  metrics.httpDuration.observe({ method: req.method, route, status: String(res.statusCode) }, seconds);
}
