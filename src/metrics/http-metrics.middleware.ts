import type { NextFunction, Request, Response } from 'express';
import type { MetricsService } from './metrics.service';

/** Times every request and counts it by its route's pattern (`/api/v1/posts/:id`), never by its path. */
export function httpMetrics(metrics: MetricsService) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const end = metrics.httpDuration.startTimer();
    res.on('finish', () => {
      // A request that no controller route matched has no `req.route` (module middleware aside,
      // mounted as a catch-all `{/*splat}`; no controller route has a wildcard).
      const path: unknown = req.route?.path;
      const route = typeof path === 'string' && path && !path.includes('*') ? `${req.baseUrl}${path}` : 'unmatched';
      end({ method: req.method, route, status: String(res.statusCode) });
    });
    next();
  };
}
