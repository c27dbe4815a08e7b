import { Controller, Get, NotFoundException, Param, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { SkipThrottle } from '@nestjs/throttler';
import type { Response } from 'express';
import { Public } from '../../auth/public.decorator';
import { ASSET_BY_NAME } from './assets';

/** The pages' stylesheet and icon: named by their content's hash, so kept for a year. */
@ApiExcludeController()
@Public()
@SkipThrottle()
@Controller('assets')
export class AssetsController {
  @Get(':name')
  serve(@Param('name') name: string, @Res() res: Response): void {
    const asset = ASSET_BY_NAME.get(name);
    if (!asset) throw new NotFoundException();
    res.setHeader('Content-Type', asset.type);
    res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.end(asset.body);
  }
}
