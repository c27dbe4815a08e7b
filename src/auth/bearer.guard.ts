import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { ChorusRequest } from '../common/request-context';
import { ApiKeysService } from './api-keys.service';
import { IS_PUBLIC } from './public.decorator';

/** Every route needs a key unless marked @Public(). */
@Injectable()
export class BearerGuard implements CanActivate {
  constructor(
    private readonly keys: ApiKeysService,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()])) {
      return true;
    }
    const req = context.switchToHttp().getRequest<ChorusRequest>();
    req.caller = await this.keys.authorize(req.headers.authorization);
    return true;
  }
}
