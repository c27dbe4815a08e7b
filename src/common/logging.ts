import type { IncomingMessage, ServerResponse } from 'node:http';
import { LoggerModule } from 'nestjs-pino';
import type { AppConfig } from '../config/app-config';
import type { ChorusRequest } from './request-context';

/**
 * One JSON line per request (nestjs-pino): its request id, the workspace once the key is
 * known, method, URL, status and duration. No headers: they cost a serialization on every
 * request, nobody reads them, and they are where credentials travel (Authorization, cookies).
 * Nest's own logger writes through it too, so every line of a request carries its id.
 */
export function loggerModule(config: AppConfig) {
  return LoggerModule.forRoot({
    pinoHttp: {
      level: config.logLevel,
      genReqId: (req: IncomingMessage) => (req as unknown as ChorusRequest).id,
      serializers: {
        req: (req: { id: string; method: string; url: string }) => ({ id: req.id, method: req.method, url: req.url }),
        res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      },
      // Called as the request starts and as it ends; the workspace is known only by the end.
      customProps: (req: IncomingMessage) => {
        const caller = (req as unknown as ChorusRequest).caller;
        return caller ? { workspace_id: caller.workspaceId } : {};
      },
      customLogLevel: (_req: IncomingMessage, res: ServerResponse, error?: Error) =>
        error || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info',
    },
  });
}
