import { Controller, Get, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { SkipThrottle } from '@nestjs/throttler';
import type { Response } from 'express';
import { createHash } from 'node:crypto';
import { Public } from '../../auth/public.decorator';
import { WIDGET_SCRIPT } from './widget';

const BODY = Buffer.from(WIDGET_SCRIPT, 'utf8');
const ETAG = `"${createHash('sha256').update(BODY).digest('base64url').slice(0, 20)}"`;

/**
 * `/widget.js`: its address is pasted into customers' pages, so it keeps it, and is cached for
 * five minutes (a new version reaches every page within them); any site may load it.
 */
@ApiExcludeController()
@Public()
@SkipThrottle()
@Controller()
export class WidgetController {
  @Get('widget.js')
  serve(@Res() res: Response): void {
    res.setHeader('Content-Type', 'text/javascript; charset=utf-8');
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.setHeader('ETag', ETAG);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
    res.end(BODY);
  }
}
