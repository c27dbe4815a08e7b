import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { ChorusRequest } from '../common/request-context';
import { routeMetadata } from '../common/route-metadata';
import { IS_PUBLIC } from './public.decorator';
import { RequestAuthenticator } from './request-authenticator';

/** Every route needs a key unless marked @Public(). */
@Injectable()
export class BearerGuard implements CanActivate {
  private readonly isPublic: (context: ExecutionContext) => boolean | undefined;

  constructor(
    private readonly authenticator: RequestAuthenticator,
    reflector: Reflector,
  ) {
    this.isPublic = routeMetadata<boolean>(reflector, IS_PUBLIC);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.isPublic(context)) return true;
    await this.authenticator.authenticate(context.getArgByIndex<ChorusRequest>(0));
    return true;
  }
}
