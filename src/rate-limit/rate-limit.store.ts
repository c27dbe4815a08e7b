import { randomBytes } from 'node:crypto';

/** Members of the Redis windows: unique across instances (the prefix) and within one (the counter). */
const MEMBER_PREFIX = randomBytes(6).toString('hex');
let members = 0;
import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { SLIDING_WINDOW_LUA } from './sliding-window';

/** The state of one counter after a request was (or was not) counted. */
export interface Tally {
  /** Whether this request was counted (it fit within the limit). */
  allowed: boolean;
  /** Requests counted in the window, this one included when allowed. */
  count: number;
  /** Milliseconds until the oldest counted request leaves the window (the window when empty). */
  resetInMs: number;
}

/**
 * A sliding-window log: a request counts while it is younger than the window. Exact at the
 * window's edges (no burst of twice the limit as with fixed windows), and a refused request
 * is never counted.
 */
class MemoryWindows {
  private readonly hits = new Map<string, { log: number[]; windowMs: number }>();

  count(key: string, limit: number, windowMs: number, add: boolean, now = Date.now()): Tally {
    const log = (this.hits.get(key)?.log ?? []).filter((at) => at > now - windowMs);
    const allowed = add && log.length < limit;
    if (allowed) log.push(now);
    if (log.length > 0) this.hits.set(key, { log, windowMs });
    else this.hits.delete(key);
    return { allowed, count: log.length, resetInMs: log.length > 0 ? log[0] + windowMs - now : windowMs };
  }

  /** Forgets counters with nothing left in their window. */
  sweep(now = Date.now()): void {
    for (const [key, { log, windowMs }] of this.hits) if (log[log.length - 1] <= now - windowMs) this.hits.delete(key);
  }
}

const REDIS_BACKOFF_MS = 2_000;

/**
 * Rate-limit counters: in Redis when REDIS_URL is set, so that every instance shares them;
 * in this process otherwise. When Redis cannot be reached, counting falls back to this
 * process (logged once), and goes back to Redis by itself when it answers again.
 */
@Injectable()
export class RateLimitStore implements OnApplicationShutdown {
  private readonly logger = new Logger('RateLimits');
  private readonly memory = new MemoryWindows();
  private readonly redis: Redis | null;
  private redisFailing = false;
  /** After a failure, Redis is left alone this long, so that a hung Redis cannot slow every request. */
  private redisRetryAt = 0;
  private readonly sweeper: NodeJS.Timeout;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.redis = config.redisUrl
      ? new Redis(config.redisUrl, {
          // Fail fast while disconnected instead of queueing: a request must not wait on Redis.
          enableOfflineQueue: false,
          maxRetriesPerRequest: 0,
          commandTimeout: 500,
          connectTimeout: 2_000,
          retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
          lazyConnect: false,
          // Commands of requests served in the same tick share one write to the socket.
          enableAutoPipelining: true,
        })
      : null;
    this.redis?.on('error', () => {}); // reported through fallBack(), once per outage
    this.redis?.defineCommand('chorusWindow', { numberOfKeys: 1, lua: SLIDING_WINDOW_LUA });
    this.sweeper = setInterval(() => this.memory.sweep(), config.rateLimitWindowMs);
    this.sweeper.unref();
  }

  /** Counts a request against `key` if it fits within `limit` in the window (RATE_LIMIT_WINDOW_MS unless given). */
  take(key: string, limit: number, windowMs = this.config.rateLimitWindowMs): Promise<Tally> {
    return this.count(key, limit, true, windowMs);
  }

  /** Whether Redis answers; null when no REDIS_URL is set. */
  async redisAnswers(): Promise<boolean | null> {
    if (!this.redis) return null;
    try {
      return (await this.redis.ping()) === 'PONG';
    } catch {
      return false;
    }
  }

  get windowMs(): number {
    return this.config.rateLimitWindowMs;
  }

  private async count(key: string, limit: number, add: boolean, windowMs: number): Promise<Tally> {
    if (this.redis && Date.now() >= this.redisRetryAt) {
      try {
        const [allowed, count, resetInMs] = (await (this.redis as any).chorusWindow(
          `chorus:rl:${key}`,
          limit,
          windowMs,
          add ? '1' : '0',
          `${MEMBER_PREFIX}.${members++}`,
        )) as [number, number, number];
        if (this.redisFailing) {
          this.redisFailing = false;
          this.logger.log('Redis answers again: rate limits are shared across instances again.');
        }
        return { allowed: allowed === 1, count, resetInMs };
      } catch (error) {
        this.redisRetryAt = Date.now() + REDIS_BACKOFF_MS;
        if (!this.redisFailing) {
          this.redisFailing = true;
          this.logger.warn(
            `Redis is unreachable (${(error as Error).message}): counting rate limits in this instance until it is back.`,
          );
        }
      }
    }
    return this.memory.count(key, limit, windowMs, add);
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.sweeper);
    if (this.redis) this.redis.disconnect();
  }
}
