import type { Server } from 'node:http';
import { Logger } from '@nestjs/common';

export const SHUTDOWN_LIMIT_MS = 15_000;

/**
 * On SIGTERM or SIGINT, runs `close` once and exits 0; exits 1 if it fails or takes longer
 * than 15 seconds (a container orchestrator's usual grace period is 30).
 */
export function closeOnSignals(close: () => Promise<void>): void {
  const logger = new Logger('Shutdown');
  let stopping = false;
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.log(`${signal}: finishing what is in flight, then stopping.`);
    setTimeout(() => {
      logger.error(`Still not stopped after ${SHUTDOWN_LIMIT_MS / 1000} s; exiting.`);
      process.exit(1);
    }, SHUTDOWN_LIMIT_MS).unref();
    try {
      await close();
      process.exit(0);
    } catch (error) {
      logger.error(`Shutdown failed: ${(error as Error).stack}`);
      process.exit(1);
    }
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

/** Stops taking connections and resolves once the requests in flight have been answered. */
export function stopListening(server: Server): Promise<void> {
  return new Promise((resolve) => {
    // A keep-alive connection stays open after its answer, and `close` waits for it: answers
    // from now on close their connection, and connections are closed as they fall idle.
    server.prependListener('request', (_req, res) => {
      if (!res.headersSent) res.setHeader('Connection', 'close');
    });
    const sweep = setInterval(() => server.closeIdleConnections(), 100);
    server.close(() => {
      clearInterval(sweep);
      resolve();
    });
    server.closeIdleConnections();
  });
}
