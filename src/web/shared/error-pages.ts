import { Injectable } from '@nestjs/common';
import type { Response } from 'express';
import type { AppError } from '../../common/app-error';
import { ErrorPages } from '../../common/error.filter';
import type { ChorusRequest } from '../../common/request-context';
import { Links } from '../../config/links';
import { renderErrorPage } from './error-page';
import { PageError } from './page-error';
import { isPagePath } from './routes';

/** The pages' errors: a page's refusal (PageError), or any error of a page path, as an error page. */
@Injectable()
export class PageErrorWriter extends ErrorPages {
  constructor(private readonly links: Links) {
    super();
  }

  answers(req: ChorusRequest, exception: unknown): boolean {
    return exception instanceof PageError || isPagePath(req.path);
  }

  isRefusal(exception: unknown): boolean {
    return exception instanceof PageError;
  }

  /** A page's refusal or failure: an error page, with the status and headers it calls for. */
  write(req: ChorusRequest, res: Response, exception: unknown, appError: AppError): void {
    const error = exception instanceof PageError ? exception : appError;
    const status = error.status;
    res.status(status);
    for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
    res.setHeader('Cache-Control', 'no-store');
    res.type('html');
    const workspace = req.site?.workspace ?? null;
    const embed = req.site?.embed ? { origins: req.site.frameOrigins } : null;
    res.send(renderErrorPage({ status, title: error instanceof PageError ? error.title : undefined, message: error.message, path: req.path, workspace, embed }, this.links));
  }
}
