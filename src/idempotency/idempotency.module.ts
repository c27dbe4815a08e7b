import { Global, Module, UseGuards } from '@nestjs/common';
import { byEngine } from '../database/engine';
import { IdempotencyGuard } from './idempotency.guard';
import { CitusIdempotencyStore, IdempotencyStore } from './idempotency.store';

/**
 * `Idempotency-Key` for the routes marked `@Idempotent()`: every authenticated POST. A guard of
 * those routes, after the global ones (IdempotencyGuard); the routes that take no key (GET,
 * PATCH, DELETE) do not run it.
 */
@Global()
@Module({
  providers: [...byEngine(IdempotencyStore, { postgres: IdempotencyStore, citus: CitusIdempotencyStore }), IdempotencyGuard],
  exports: [IdempotencyStore, IdempotencyGuard],
})
export class IdempotencyModule {}

/** Marks a POST route as taking `Idempotency-Key` (test/idempotency.e2e checks every POST has it). */
export const Idempotent = () => UseGuards(IdempotencyGuard);
