import { randomBytes } from 'node:crypto';

/** Members of the Redis windows: unique across instances (the prefix) and within one (the counter). */
const MEMBER_PREFIX = randomBytes(6).toString('hex');
let members = 0;
import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { LimitsRedis, WHOLE_CLUSTER } from './limits-redis';

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
 * Rate-limit counters: in Redis when REDIS_URL is set (one server, or a Redis Cluster's nodes),
 * so that every instance shares them; in this process otherwise. When the Redis server that
 * holds a counter cannot be reached (the one server, or one node of the cluster), that counter
 * falls back to this process (logged once per outage), and goes back to Redis by itself when it
 * answers again; counters on the cluster's other nodes stay shared.
 */
@Injectable()
export class RateLimitCounters implements OnApplicationShutdown {
  private readonly logger = new Logger('RateLimits');
  private readonly memory = new MemoryWindows();
  private readonly redis: LimitsRedis | null;
  /**
   * Servers that failed (LimitsRedis.serverOf), each left alone until the time it maps to, so
   * that a hung server cannot slow every request; a server stays here until it answers again.
   */
  private readonly failing = new Map<string, number>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.redis = config.redisNodes ? new LimitsRedis(config.redisNodes) : null;
    this.sweeper = setInterval(() => this.memory.sweep(), config.rateLimitWindowMs);
    this.sweeper.unref();
  }

  /** Counts a request against `key` if it fits within `limit` in the window (RATE_LIMIT_WINDOW_MS unless given). */
  take(key: string, limit: number, windowMs = this.config.rateLimitWindowMs): Promise<Tally> {
    return this.count(key, limit, true, windowMs);
  }

  /** Whether Redis answers (a cluster: whether it reports itself ok); null when no REDIS_URL is set. */
  async redisAnswers(): Promise<boolean | null> {
    return this.redis ? this.redis.answers() : null;
  }

  get windowMs(): number {
    return this.config.rateLimitWindowMs;
  }

  private async count(key: string, limit: number, add: boolean, windowMs: number): Promise<Tally> {
    if (this.redis) {
      const redisKey = LimitsRedis.key(key);
      const server = this.redis.serverOf(redisKey);
      if (Date.now() >= (this.failing.get(server) ?? 0)) {
        try {
          const [allowed, count, resetInMs] = await this.redis.window(redisKey, limit, windowMs, add, `${MEMBER_PREFIX}.${members++}`);
          if (this.failing.size > 0) this.answersAgain(server);
          return { allowed: allowed === 1, count, resetInMs };
        } catch (error) {
          if (!this.failing.has(server)) {
            this.logger.warn(
              `${server} is unreachable (${(error as Error).message}): counting ${this.whose(server)} in this instance until it is back.`,
            );
          }
          this.failing.set(server, Date.now() + REDIS_BACKOFF_MS);
        }
      }
    }
    return this.memory.count(key, limit, windowMs, add);
  }

  private answersAgain(server: string): void {
    // A node that answers is also news that the cluster can be reached again.
    for (const back of server === WHOLE_CLUSTER ? [server] : [server, WHOLE_CLUSTER]) {
      if (this.failing.delete(back)) this.logger.log(`${back} answers again: ${this.whose(back)} are shared across instances again.`);
    }
  }

  /** What a log line says is counted where: every rate limit, or a cluster node's share of them. */
  private whose(server: string): string {
    return server.startsWith('Redis node ') ? 'the rate limits it holds' : 'rate limits';
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.sweeper);
    if (this.redis) this.redis.disconnect();
  }
}
