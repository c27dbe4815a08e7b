import { Global, Module, UseInterceptors } from '@nestjs/common';
import { IdempotencyInterceptor } from './idempotency.interceptor';
import { IdempotencyStore } from './idempotency.store';

/**
 * `Idempotency-Key` for the routes marked `@Idempotent()`: every authenticated POST. It is not a
 * global interceptor, so that the routes that take no key (GET, PATCH, DELETE) run without one:
 * a route with no interceptor skips Nest's Observable pipeline altogether.
 */
@Global()
@Module({ providers: [IdempotencyStore, IdempotencyInterceptor], exports: [IdempotencyStore, IdempotencyInterceptor] })
export class IdempotencyModule {}

/** Marks a POST route as taking `Idempotency-Key` (test/idempotency.e2e checks every POST has it). */
export const Idempotent = () => UseInterceptors(IdempotencyInterceptor);
