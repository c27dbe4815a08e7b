import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Response } from 'express';
import { map, Observable, of } from 'rxjs';
import type { ChorusRequest } from '../../common/request-context';
import { routeMetadata } from '../../common/route-metadata';
import { PAGE_QUERY, pageAddress } from './page-address';
import { etagOf, matchesEtag, PageCache } from './page-cache';

/** How a page may be kept: by anyone (a visitor without a session), or by no one. */
export type Caching = { public: true; workspaceId: string; version: string | null } | { public: false };

/** What a page handler answers with: a document (HTML, or a feed), rendered. */
export class Page {
  constructor(
    readonly body: string,
    readonly caching: Caching,
    readonly status = 200,
    readonly type = 'text/html; charset=utf-8',
    readonly headers: Record<string, string> = {},
  ) {}
}

/** What a form's handler answers with when it worked: 303 back to a page (or 301 to a page's canonical address). */
export class Redirect {
  constructor(
    readonly location: string,
    readonly status: 301 | 303 = 303,
  ) {}
}

const PUBLIC = 'public, max-age=0, must-revalidate';
const PRIVATE = 'private, no-store';

/**
 * Sends what page handlers answer, in one place: status, type and caching headers. A public
 * page carries an ETag (a hash of its bytes) and is answered 304 when the visitor's copy is
 * current: before the handler runs when this instance knows the address is unchanged
 * (PageCache), else after rendering, by comparing hashes. A page for someone signed in is
 * private and never stored. Redirects are not cached either (a post merged later must move).
 */
@Injectable()
export class PageResponses implements NestInterceptor {
  private readonly usedQuery: (context: ExecutionContext) => string[] | undefined;

  constructor(
    private readonly cache: PageCache,
    reflector: Reflector,
  ) {
    this.usedQuery = routeMetadata<string[]>(reflector, PAGE_QUERY);
  }

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    const req = http.getRequest<ChorusRequest>();
    const res = http.getResponse<Response>();
    const ifNoneMatch = req.headers['if-none-match'];
    // Kept by the page's own address: the parameters it does not use are not part of it (PageQuery).
    const address = pageAddress(req.originalUrl, this.usedQuery(context));
    const kept = (req.method === 'GET' || req.method === 'HEAD') && req.site?.anonymous ? this.cache.current(address) : null;
    if (kept && matchesEtag(ifNoneMatch, kept.etag)) {
      this.sendPublic(res, kept.etag);
      res.status(304);
      return of('');
    }
    if (kept?.body && !/no-cache/i.test(req.headers['cache-control'] ?? '')) {
      for (const name in kept.headers) res.setHeader(name, kept.headers[name]);
      res.setHeader('Content-Type', kept.type);
      this.sendPublic(res, kept.etag);
      return of(kept.body);
    }
    return next.handle().pipe(map((result: unknown) => this.send(req, res, result, ifNoneMatch, address)));
  }

  private sendPublic(res: Response, etag: string): void {
    res.setHeader('ETag', etag);
    res.setHeader('Cache-Control', PUBLIC);
    res.setHeader('Vary', 'Cookie');
  }

  private send(req: ChorusRequest, res: Response, result: unknown, ifNoneMatch: string | undefined, address: string): string | Buffer {
    if (result instanceof Redirect) {
      res.status(result.status);
      res.setHeader('Location', result.location);
      res.setHeader('Cache-Control', 'no-cache');
      return '';
    }
    if (!(result instanceof Page)) throw new Error(`A page handler answered ${typeof result}, not a Page or a Redirect.`);
    for (const name in result.headers) res.setHeader(name, result.headers[name]);
    res.setHeader('Content-Type', result.type);
    res.status(result.status);
    if (!result.caching.public || !req.site?.anonymous || result.status !== 200) {
      res.setHeader('Cache-Control', PRIVATE);
      return result.body;
    }
    // Encoded once: hashed for the ETag, kept, and sent as these bytes.
    const bytes = Buffer.from(result.body, 'utf8');
    const etag = etagOf(bytes);
    this.sendPublic(res, etag);
    const { workspaceId, version } = result.caching;
    this.cache.remember(address, workspaceId, version, { etag, body: bytes, type: result.type, headers: result.headers });
    if (matchesEtag(ifNoneMatch, etag)) {
      res.status(304);
      return '';
    }
    return bytes;
  }
}
