import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { ChorusRequest } from '../common/request-context';
import { IS_PUBLIC } from './public.decorator';
import { RequestAuthenticator } from './request-authenticator';

/** Every route needs a key unless marked @Public(). */
@Injectable()
export class BearerGuard implements CanActivate {
  constructor(
    private readonly authenticator: RequestAuthenticator,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()])) {
      return true;
    }
    await this.authenticator.authenticate(context.switchToHttp().getRequest<ChorusRequest>());
    return true;
  }
}
