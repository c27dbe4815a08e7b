import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/app-config';

/**
 * Who this processor is, and how long its claims last. A delivery under lease belongs to its
 * owner until the lease ends; a processor that dies mid-send loses its claims after `ms`.
 */
@Injectable()
export class Lease {
  readonly owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  /** Longer than any attempt. */
  readonly ms: number;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.ms = 2 * config.webhookTimeoutMs + 1_000;
  }
}
