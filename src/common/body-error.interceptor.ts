import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { Observable } from 'rxjs';
import type { ChorusRequest } from './request-context';

/** Raises a body problem found by `jsonBody`, now that the guards have passed. */
@Injectable()
export class BodyErrorInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = context.switchToHttp().getRequest<ChorusRequest>();
    if (req.bodyError) throw req.bodyError;
    return next.handle();
  }
}
