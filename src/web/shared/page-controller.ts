import { applyDecorators, CanActivate, Controller, Type, UseGuards, UseInterceptors } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { SkipThrottle } from '@nestjs/throttler';
import { Public } from '../../auth/public.decorator';
import { PageResponses } from './page-response';

/**
 * A controller of pages at `path`: not in the API's document, no API key and no API rate limit,
 * behind its area's guard (`guard`: sessions, form tokens), answered by PageResponses.
 */
export const PageController = (path: string, guard: Type<CanActivate>) =>
  applyDecorators(ApiExcludeController(), Public(), SkipThrottle(), UseGuards(guard), UseInterceptors(PageResponses), Controller(path));
