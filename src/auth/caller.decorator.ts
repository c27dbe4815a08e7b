import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Caller, ChorusRequest } from '../common/request-context';

/** The authenticated caller of this request. */
export const CurrentCaller = createParamDecorator(
  (_: unknown, context: ExecutionContext): Caller => context.getArgByIndex<ChorusRequest>(0).caller!,
);
