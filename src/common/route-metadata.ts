import type { ExecutionContext, Type } from '@nestjs/common';
import type { Reflector } from '@nestjs/core';

/**
 * A decorator's value for a route (the handler's, else its controller's), looked up once per
 * route: metadata is fixed once the controllers are defined, and a guard in front of every
 * request need not walk it each time.
 */
export function routeMetadata<T>(reflector: Reflector, key: string): (context: ExecutionContext) => T | undefined {
  const byHandler = new WeakMap<object, Map<Type, T | undefined>>();
  return (context) => {
    const handler = context.getHandler();
    const controller = context.getClass();
    let byClass = byHandler.get(handler);
    if (!byClass) byHandler.set(handler, (byClass = new Map()));
    if (!byClass.has(controller)) byClass.set(controller, reflector.getAllAndOverride<T>(key, [handler, controller]));
    return byClass.get(controller);
  };
}
