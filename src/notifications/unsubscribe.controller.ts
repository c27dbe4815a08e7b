import { Controller, Get, HttpCode, Param, Post, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '../auth/public.decorator';
import { UnsubscribeService } from './unsubscribe.service';

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head>` +
  `<body style="font-family:sans-serif;max-width:32em;margin:4em auto"><h1>${title}</h1>${body}</body></html>`;

/**
 * The link in every voter email. GET only shows a button (link checkers and mail scanners
 * follow links; they must not unsubscribe anyone); POST, from that button or from a mail
 * client's one-click unsubscribe (RFC 8058), does it.
 */
@ApiExcludeController()
@Public()
@Controller('email/unsubscribe')
export class UnsubscribeController {
  constructor(private readonly unsubscribe: UnsubscribeService) {}

  @Get(':token')
  confirm(@Param('token') token: string, @Res() res: Response): void {
    this.unsubscribe.read(token);
    res
      .type('html')
      .send(
        page(
          'Stop these emails?',
          '<p>You get an email when a post you voted for changes status.</p>' +
            '<form method="post"><button type="submit">Unsubscribe</button></form>',
        ),
      );
  }

  @Post(':token')
  @HttpCode(200)
  async stop(@Param('token') token: string, @Res() res: Response): Promise<void> {
    await this.unsubscribe.unsubscribe(token);
    res.type('html').send(page('Unsubscribed', '<p>You will get no more emails about posts you voted for from this board’s team.</p>'));
  }
}
