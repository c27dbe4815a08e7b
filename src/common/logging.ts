import type { IncomingMessage, ServerResponse } from 'node:http';
import { LoggerModule } from 'nestjs-pino';
import type { AppConfig } from '../config/app-config';
import type { ChorusRequest } from './request-context';

/** Headers that carry credentials: never written to a log. */
export const REDACTED_HEADERS = ['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key'];

/**
 * One JSON line per request (nestjs-pino): its request id, the workspace once the key is
 * known, method, route, status and duration, with credentials redacted. Nest's own logger
 * writes through it too, so every line of a request carries its id.
 */
export function loggerModule(config: AppConfig) {
  return LoggerModule.forRoot({
    pinoHttp: {
      level: config.logLevel,
      genReqId: (req: IncomingMessage) => (req as unknown as ChorusRequest).id,
      redact: {
        paths: REDACTED_HEADERS.flatMap((h) => [`req.headers["${h}"]`, `res.headers["${h}"]`]),
        censor: '[redacted]',
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
