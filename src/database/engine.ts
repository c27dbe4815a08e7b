import type { Provider, Type } from '@nestjs/common';
import type { Database } from './sql';

/**
 * Which PostgreSQL Chorus runs on, learnt once at start-up (DatabaseModule) and asked nowhere
 * else: where the engines truly differ, a store is an interface with one class per engine,
 * chosen here.
 * - `postgres`: one server.
 * - `embedded`: PGlite in this process, one session: a NOTIFY reaches no other connection.
 * - `citus`: a coordinator whose tenant tables are distributed by workspace_id
 *   (migrations/…-DistributeByWorkspace.ts): a statement should name one workspace, so that it
 *   runs on the one worker holding that workspace's shard.
 */
export type EngineKind = 'postgres' | 'embedded' | 'citus';

export const ENGINE_KIND = Symbol('ENGINE_KIND');

export async function detectEngine(db: Database, embedded: boolean): Promise<EngineKind> {
  if (embedded) return 'embedded';
  const citus = await db.rows(`SELECT 1 FROM pg_extension WHERE extname = 'citus'`);
  return citus.length > 0 ? 'citus' : 'postgres';
}

/**
 * Provides `token` as one of `implementations`, by engine; an engine not named takes the
 * `postgres` one. Each implementation is built as a provider of its own (under a token of its
 * own: the token is often the PostgreSQL class itself), with its own dependencies.
 */
export function byEngine<T>(
  token: abstract new (...args: never[]) => T,
  implementations: { postgres: Type<T> } & Partial<Record<Exclude<EngineKind, 'postgres'>, Type<T>>>,
): Provider[] {
  const classes = [...new Set(Object.values(implementations))] as Type<T>[];
  const tokens = classes.map((c) => Symbol(`${token.name} on ${c.name}`));
  return [
    ...classes.map((useClass, i) => ({ provide: tokens[i], useClass })),
    {
      provide: token,
      inject: [ENGINE_KIND, ...tokens],
      useFactory: (kind: EngineKind, ...built: T[]) => built[classes.indexOf(implementations[kind] ?? implementations.postgres)],
    },
  ];
}
