import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { freePort } from './processes';

/** The shared Redis that jest.config.js found (REDIS_URL or 127.0.0.1:6379), or null. */
export const sharedRedisUrl = (): string | null => process.env.CHORUS_TEST_REDIS_URL || null;

/**
 * Whether Debian's redis-server (and redis-cli) are here, for tests that start servers of their
 * own; CHORUS_TEST_REQUIRE_REDIS=true (CI) makes their absence a failure instead of a skip.
 */
export function redisServerInstalled(): boolean {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
    execFileSync('redis-cli', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    if (process.env.CHORUS_TEST_REQUIRE_REDIS === 'true') {
      throw new Error('CHORUS_TEST_REQUIRE_REDIS is set but redis-server or redis-cli is missing (apt-get install redis-server).');
    }
    return false;
  }
}

/** A redis-server of the test's own on a free port, which the test may stop and start again. */
export class OwnRedis {
  private child: ChildProcess | null = null;
  private constructor(readonly port: number) {}

  static async start(): Promise<OwnRedis> {
    const redis = new OwnRedis(await freePort());
    await redis.resume();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async resume(): Promise<void> {
    this.child = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    await new Promise<void>((resolve, reject) => {
      this.child!.stdout!.on('data', (chunk) => {
        out += chunk;
        if (out.includes('Ready to accept connections')) resolve();
      });
      this.child!.once('exit', (code) => reject(new Error(`redis-server exited with ${code}: ${out}`)));
    });
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    await new Promise((resolve) => {
      child.once('exit', resolve);
      child.kill('SIGKILL');
    });
    this.child = null;
  }
}
