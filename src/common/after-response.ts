import type { Logger } from '@nestjs/common';
import type { Response } from 'express';

/**
 * Runs `work` once the answer has been sent (or the client has gone), so that nothing it does
 * can change the answer, its size or its timing: what an answer must not tell (whether an
 * address is a member's) is then worked out where no client can time it. A failure is logged;
 * the work is not retried (the person asks again).
 */
export function afterResponse(res: Response, logger: Logger, what: string, work: () => Promise<unknown>): void {
  let started = false;
  const run = () => {
    if (started) return;
    started = true;
    work().catch((error: Error) => logger.error(`${what} failed: ${error.message}`, error.stack));
  };
  res.once('finish', run);
  res.once('close', run);
}
