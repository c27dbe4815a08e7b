import { ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import calculateSlot from 'cluster-key-slot';

const run = promisify(execFile);

/** Whether `port` can be listened on at 127.0.0.1 now. */
function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A port for a cluster node: free, and so is the cluster bus's port, 10000 above it (so the
 * node's port stays below 55536, out of the range the kernel hands out for free ports).
 */
async function nodePort(taken: Set<number>): Promise<number> {
  for (let tries = 0; tries < 200; tries++) {
    const port = 20_000 + Math.floor(Math.random() * 20_000);
    if (taken.has(port) || taken.has(port + 10_000)) continue;
    if ((await portFree(port)) && (await portFree(port + 10_000))) return port;
  }
  throw new Error('no free port pair for a Redis Cluster node');
}

/** One redis-server in cluster mode, in a folder of its own (its nodes.conf survives a restart). */
class ClusterNode {
  private child: ChildProcess | null = null;

  constructor(
    readonly port: number,
    private readonly dir: string,
    private readonly nodeTimeoutMs: number,
  ) {}

  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.child !== null;
  }

  async start(): Promise<void> {
    const child = spawn(
      'redis-server',
      [
        '--port', String(this.port), '--bind', '127.0.0.1', '--dir', this.dir,
        '--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf',
        '--cluster-node-timeout', String(this.nodeTimeoutMs),
        '--save', '', '--appendonly', 'no',
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    this.child = child;
    let out = '';
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (chunk) => {
        out += chunk;
        if (out.includes('Ready to accept connections')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`redis-server on ${this.port} exited with ${code}: ${out}`)));
    });
  }

  /** Kills the node at once (SIGKILL), as a crashed machine would go. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    await new Promise((resolve) => {
      child.once('exit', resolve);
      child.kill('SIGKILL');
    });
    this.child = null;
  }
}

/**
 * A local Redis Cluster of three masters (no replicas), made by the test that uses it with
 * Debian's redis-server and `redis-cli --cluster create`; each node has its own temporary folder,
 * removed by `stop()`. `nodeTimeoutMs` is cluster-node-timeout: how long a killed node goes
 * unnoticed before the others mark it failed and, with its slots uncovered, answer CLUSTERDOWN.
 */
export class RedisCluster {
  private constructor(
    readonly nodes: ClusterNode[],
    private readonly root: string,
  ) {}

  static async start(options: { nodes?: number; nodeTimeoutMs?: number } = {}): Promise<RedisCluster> {
    const root = mkdtempSync(join(tmpdir(), 'chorus-redis-cluster-'));
    const taken = new Set<number>();
    const nodes: ClusterNode[] = [];
    for (let i = 0; i < (options.nodes ?? 3); i++) {
      const port = await nodePort(taken);
      taken.add(port).add(port + 10_000);
      const dir = join(root, String(port));
      mkdirSync(dir);
      nodes.push(new ClusterNode(port, dir, options.nodeTimeoutMs ?? 2_000));
    }
    const cluster = new RedisCluster(nodes, root);
    try {
      await Promise.all(nodes.map((node) => node.start()));
      await run('redis-cli', ['--cluster', 'create', ...nodes.map((node) => node.address), '--cluster-yes']);
      await cluster.untilOk();
    } catch (error) {
      await cluster.stop();
      throw error;
    }
    return cluster;
  }

  /** REDIS_URL for Chorus: every node, comma-separated (a space after each comma, as people write lists). */
  get url(): string {
    return this.nodes.map((node) => `redis://${node.address}`).join(', ');
  }

  /** Runs redis-cli against one node. */
  async cli(node: ClusterNode, ...args: string[]): Promise<string> {
    return (await run('redis-cli', ['-p', String(node.port), ...args])).stdout;
  }

  /** The node that serves `key`'s slot now (CLUSTER SLOTS of a running node). */
  async nodeOf(key: string): Promise<ClusterNode> {
    const slot = calculateSlot(key);
    const asker = this.nodes.find((node) => node.running)!;
    const ranges = (await this.cli(asker, '--json', 'cluster', 'slots').catch(() => null)) ?? '';
    const parsed = JSON.parse(ranges) as [number, number, [string, number]][];
    const range = parsed.find(([from, to]) => from <= slot && slot <= to);
    if (!range) throw new Error(`no node serves slot ${slot}`);
    return this.nodes.find((node) => node.port === Number(range[2][1]))!;
  }

  /** Waits until every running node reports cluster_state:ok. */
  async untilOk(timeoutMs = 30_000): Promise<void> {
    const started = Date.now();
    for (;;) {
      const states = await Promise.all(
        this.nodes.filter((node) => node.running).map((node) => this.cli(node, 'cluster', 'info').catch(() => '')),
      );
      if (states.every((info) => /cluster_state:ok/.test(info))) return;
      if (Date.now() - started > timeoutMs) throw new Error(`the Redis Cluster is not ok after ${timeoutMs} ms: ${states.join(' | ')}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Waits until the running nodes report cluster_state:fail (a killed node noticed and its slots uncovered). */
  async untilFailed(timeoutMs = 30_000): Promise<void> {
    const started = Date.now();
    for (;;) {
      const states = await Promise.all(
        this.nodes.filter((node) => node.running).map((node) => this.cli(node, 'cluster', 'info').catch(() => '')),
      );
      if (states.every((info) => /cluster_state:fail/.test(info))) return;
      if (Date.now() - started > timeoutMs) throw new Error(`the Redis Cluster did not notice a lost node after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async stop(): Promise<void> {
    await Promise.all(this.nodes.map((node) => node.kill()));
    rmSync(this.root, { recursive: true, force: true });
  }
}
