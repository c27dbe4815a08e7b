import { Controller, Get, Header } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { SkipThrottle } from '@nestjs/throttler';
import { Public } from '../../auth/public.decorator';
import { Links } from '../../config/links';
import { robotsTxt } from './views/feeds';

/** `/robots.txt`: crawlers may read the public site, not the dashboard or the API. */
@ApiExcludeController()
@Public()
@SkipThrottle()
@Controller()
export class RobotsController {
  private readonly text: string;

  constructor(links: Links) {
    const paths = new Set([links.adminPath('/admin'), links.adminPath('/api'), links.publicPath('/admin'), links.publicPath('/api')]);
    this.text = robotsTxt([...paths]);
  }

  @Get('robots.txt')
  @Header('Content-Type', 'text/plain; charset=utf-8')
  @Header('Cache-Control', 'public, max-age=3600')
  robots(): string {
    return this.text;
  }
}
