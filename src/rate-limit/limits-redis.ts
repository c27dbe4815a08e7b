import calculateSlot from 'cluster-key-slot';
import Redis, { Cluster, type RedisOptions } from 'ioredis';
import { SLIDING_WINDOW_LUA } from './sliding-window';

/** Redis's answer to the sliding-window script: allowed (0/1), count, ms until the oldest leaves. */
export type WindowAnswer = [number, number, number];

/** What serverOf answers while the cluster's slots are not known yet (none of its nodes answered). */
export const WHOLE_CLUSTER = 'Redis Cluster';

/**
 * The rate-limit counters' Redis: one server, or the nodes of a Redis Cluster when REDIS_URL
 * lists several. Either way a counter is one key, `chorus:rl:{<counter>}`: the braces are its
 * hash tag, so the key and anything ever added beside it for the same counter hash to one slot
 * and the sliding-window script runs on the one node that holds it.
 */
export class LimitsRedis {
  private readonly client: Redis | Cluster;

  constructor(nodes: string[]) {
    // Fail fast instead of queueing or retrying: a request must not wait on Redis, and a failed
    // command counts in this instance instead (RateLimitCounters).
    const fast: RedisOptions = {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: 500,
      connectTimeout: 2_000,
    };
    const reconnect = (attempt: number) => Math.min(attempt * 200, 2_000);
    this.client =
      nodes.length === 1
        ? new Redis(nodes[0], {
            ...fast,
            retryStrategy: reconnect,
            lazyConnect: false,
            // Commands of requests served in the same tick share one write to the socket.
            enableAutoPipelining: true,
          })
        : new Cluster(nodes, {
            enableOfflineQueue: false,
            // Not on a cluster: ioredis's automatic pipelines handle MOVED for the whole pipeline
            // without connecting to the node named, so a node that was restarted stayed unused
            // (every command on its slots failed with MOVED until the process restarted; here,
            // and redis/ioredis#2075).
            enableAutoPipelining: false,
            clusterRetryStrategy: reconnect,
            // A node that is lost (connection closed) or a cluster that says CLUSTERDOWN fails the
            // command at once instead of retrying it for up to 16 x 100 ms: the store then counts
            // that node's keys in this instance. MOVED and ASK are still followed.
            retryDelayOnFailover: 0,
            retryDelayOnClusterDown: 0,
            // The password and TLS of the first address apply to the nodes the cluster reports.
            redisOptions: { ...fast, ...credentials(nodes[0]) },
          });
    this.client.on('error', () => {}); // reported by RateLimitCounters, once per outage
    if (this.client instanceof Cluster) {
      // The cluster's connection to each node is lazy, and with no offline queue a command that
      // finds it still connecting fails: connect each node as soon as the cluster names it.
      this.client.on('+node', (node: Redis) => void node.connect().catch(() => {}));
    }
    this.client.defineCommand('chorusWindow', { numberOfKeys: 1, lua: SLIDING_WINDOW_LUA });
  }

  /** The key of the counter `counter`. */
  static key(counter: string): string {
    return `chorus:rl:{${counter}}`;
  }

  /** Runs the sliding-window script on `key` (see SLIDING_WINDOW_LUA for the arguments). */
  window(key: string, limit: number, windowMs: number, add: boolean, member: string): Promise<WindowAnswer> {
    return (this.client as unknown as { chorusWindow(...args: unknown[]): Promise<WindowAnswer> }).chorusWindow(
      key,
      limit,
      windowMs,
      add ? '1' : '0',
      member,
    );
  }

  /**
   * Which server holds `key` now, as a log line names it: failures are remembered per server,
   * so that a lost cluster node sends its own keys to this instance's count, not everyone's.
   */
  serverOf(key: string): string {
    if (!(this.client instanceof Cluster)) return 'Redis';
    const node = this.client.slots[calculateSlot(key)]?.[0];
    return node ? `Redis node ${node}` : WHOLE_CLUSTER;
  }

  /** Whether Redis answers: the server a PING, or a node of the cluster reporting `cluster_state:ok`. */
  async answers(): Promise<boolean> {
    try {
      if (this.client instanceof Cluster) {
        const info = (await this.client.cluster('INFO')) as string;
        return /^cluster_state:ok\s*$/m.test(info);
      }
      return (await this.client.ping()) === 'PONG';
    } catch {
      return false;
    }
  }

  disconnect(): void {
    this.client.disconnect();
  }
}

/** A node's username, password and TLS from its URL, for the nodes a cluster reports. */
function credentials(url: string): RedisOptions {
  const parsed = new URL(url);
  return {
    ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
    ...(parsed.password ? { password: decodeURIComponent(parsed.password) } : {}),
    ...(parsed.protocol === 'rediss:' ? { tls: {} } : {}),
  };
}
