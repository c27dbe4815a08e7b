import type { LoggerService } from '@nestjs/common';
import type { NextFunction, Response } from 'express';
import pino, { Logger as Pino } from 'pino';
import { pooledRandomId } from './random';
import { loggedUrl } from './logged-url';
import type { ChorusRequest } from './request-context';

/**
 * The process's one pino logger at LOG_LEVEL, on standard output: JSON lines, for log collectors
 * (containers, pipes, tests), or readable lines when a person watches a terminal.
 */
export function createLogger(level: string, readable = process.stdout.isTTY === true): Pino {
  return readable ? pino({ level }, readableLines(process.stdout)) : pino({ level }, bufferedStdout());
}

/** How long a JSON line may wait in the buffer before it is written anyway. */
const FLUSH_EVERY_MS = 100;

/**
 * Standard output for JSON lines, written by the 4 KB (about fifteen request lines) rather than a
 * write a line: a busy API writes one line a request, and the write was a system call each.
 * Still synchronous, so nothing is in flight: a line waits at most FLUSH_EVERY_MS (sonic-boom's
 * own timer, whose flush writes what waits and nothing more), and whatever waits is written as
 * the process exits (not if it is killed: up to FLUSH_EVERY_MS of lines). Not `flushSync` on a
 * timer: it also calls fsync, which, with standard output sent to a file, made the disk sync ten
 * times a second whether a line waited or not (about 6% of the main thread in a profile under
 * load).
 */
function bufferedStdout(): pino.DestinationStream {
  const out = pino.destination({ dest: 1, minLength: 4096, sync: true, periodicFlush: FLUSH_EVERY_MS });
  process.once('exit', () => {
    try {
      out.flushSync();
    } catch {
      // Standard output is gone (a closed pipe): nothing can be written, and logging must not stop Chorus.
    }
  });
  return out;
}

/**
 * pino-pretty's lines, written as each is logged (a stream of its own would write them a tick
 * later, after the demo's banner that follows them): `12:00:00.000 INFO: Outbox: delivery
 * attempt {…}`, a request as `request completed: GET /api/v1/boards 200 in 3 ms (req_…)`, and
 * a stack on the lines below.
 */
export function readableLines(output: { write(text: string): unknown }): { write(line: string): void } {
  // Loaded only for a terminal, so that a server's memory does not carry it.
  const { prettyFactory } = require('pino-pretty') as typeof import('pino-pretty');
  const pretty = prettyFactory({
    translateTime: 'SYS:HH:MM:ss.l',
    singleLine: true,
    ignore: 'pid,hostname,context,req,res,responseTime',
    errorLikeObjectKeys: ['err', 'stack'],
    customPrettifiers: { stack: (stack) => String(stack) },
    messageFormat: (log, messageKey) => {
      const message = `${typeof log.context === 'string' ? `${log.context}: ` : ''}${String(log[messageKey] ?? '')}`;
      const { req, res, responseTime } = log as { req?: { id: string; method: string; url: string }; res?: { statusCode: number }; responseTime?: number };
      if (!req || !res) return message;
      return `${message}: ${req.method} ${req.url} ${res.statusCode} in ${responseTime} ms (${req.id})`;
    },
  });
  return { write: (line) => void output.write(pretty(line)) };
}

/** Nest's own start-up lines (each module initialised, each route mapped): at debug, so that a start shows what Chorus says. */
const NEST_START_UP = new Set(['NestFactory', 'InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestApplication']);

/**
 * Nest's logger over pino: a line with the message and its `context` (the class that wrote it).
 * A request's own lines name it in their text (`request req_…`); nothing follows a request
 * through the async calls it makes, because that (AsyncLocalStorage) taxes every promise of
 * every request.
 */
export class NestPinoLogger implements LoggerService {
  constructor(private readonly pino: Pino) {}

  log(message: unknown, ...rest: unknown[]): void {
    const context = rest[rest.length - 1];
    this.write(typeof context === 'string' && NEST_START_UP.has(context) ? 'debug' : 'info', message, rest);
  }

  error(message: unknown, ...rest: unknown[]): void {
    // Nest's error(message, stack?, context?): a stack is a string with line breaks.
    const [stack, ...others] = rest;
    if (typeof stack === 'string' && stack.includes('\n')) return this.write('error', message, others, { stack });
    this.write('error', message, rest);
  }

  warn(message: unknown, ...rest: unknown[]): void {
    this.write('warn', message, rest);
  }

  debug(message: unknown, ...rest: unknown[]): void {
    this.write('debug', message, rest);
  }

  verbose(message: unknown, ...rest: unknown[]): void {
    this.write('trace', message, rest);
  }

  fatal(message: unknown, ...rest: unknown[]): void {
    this.write('fatal', message, rest);
  }

  private write(level: pino.Level, message: unknown, rest: unknown[], fields: Record<string, unknown> = {}): void {
    if (!this.pino.isLevelEnabled(level)) return;
    // The last string argument is the context, as Nest passes it.
    const context = typeof rest[rest.length - 1] === 'string' ? rest[rest.length - 1] : undefined;
    if (message instanceof Error) {
      this.pino[level]({ context, ...fields, err: message }, message.message);
    } else if (typeof message === 'object' && message !== null) {
      this.pino[level]({ context, ...fields, ...message });
    } else {
      this.pino[level]({ context, ...fields }, String(message));
    }
  }
}

export { loggedUrl } from './logged-url';

/**
 * What every request gets, in one middleware (one clock, one listener): an id, answered in the
 * `Request-Id` header; as it ends, `finished` (its metrics, in the app) and one JSON log line with
 * its id, method and URL (never its headers: nobody reads them, and they carry credentials; nor
 * the tokens of sign-in addresses, see loggedUrl),
 * status, duration in ms, and the workspace once the key is known. A 5xx logs at error, a 4xx at
 * warn. A request whose client went away first is logged once too, as aborted, and not counted.
 */
export function observeRequests(logger: Pino, finished: (req: ChorusRequest, res: Response, seconds: number) => void) {
  return (req: ChorusRequest, res: Response, next: NextFunction): void => {
    const started = performance.now();
    req.id = `req_${pooledRandomId(12)}`;
    res.setHeader('Request-Id', req.id);
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      const ms = performance.now() - started;
      const completed = res.writableFinished;
      if (completed) finished(req, res, ms / 1000);
      const status = res.statusCode;
      const level = status >= 500 ? 'error' : status >= 400 ? 'warn' : 'info';
      if (!logger.isLevelEnabled(level)) return;
      const line: Record<string, unknown> = {
        req: { id: req.id, method: req.method, url: loggedUrl(req.originalUrl) },
        res: { statusCode: status },
        responseTime: Math.round(ms),
      };
      if (req.caller) line.workspace_id = req.caller.workspaceId;
      logger[level](line, completed ? 'request completed' : 'request aborted');
    };
    // `end` runs once (`ended`): plain listeners, without the wrapper `once` makes for each.
    res.on('finish', end);
    res.on('close', end);
    next();
  };
}
