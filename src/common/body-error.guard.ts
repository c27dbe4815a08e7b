import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { ChorusRequest } from './request-context';

/**
 * Raises a body problem found by `jsonBody`, now that the bearer and throttler guards have
 * passed: a 401 or 429 comes before any problem with the request itself, and a body that did not
 * parse is refused before an `Idempotency-Key` is looked at.
 */
@Injectable()
export class BodyErrorGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const req = context.getArgByIndex<ChorusRequest>(0);
    if (req.bodyError) throw req.bodyError;
    return true;
  }
}
