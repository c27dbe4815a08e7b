import { ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';

export const ROOT = join(__dirname, '..', '..');

/** A free TCP port on loopback. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface Running {
  child: ChildProcess;
  /** stdout and stderr together, as a person at the terminal sees them. */
  output(): string;
  stdout(): string;
  stderr(): string;
  /** Resolves with the output once `pattern` appears in it. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Sends a signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Runs a built entry point of the project (`dist/src/<script>.js`) with the given environment. */
export function runBuilt(script: string, args: string[], env: Record<string, string | undefined>): Running {
  const child = spawn(process.execPath, [join(ROOT, 'dist', 'src', `${script}.js`), ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => ((output += chunk), (stdout += chunk)));
  child.stderr!.on('data', (chunk) => ((output += chunk), (stderr += chunk)));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    output: () => output,
    stdout: () => stdout,
    stderr: () => stderr,
    waitFor(pattern, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const started = Date.now();
        const poll = setInterval(() => {
          const match = output.match(pattern);
          if (match) {
            clearInterval(poll);
            resolve(match);
          } else if (child.exitCode !== null || Date.now() - started > timeoutMs) {
            clearInterval(poll);
            reject(new Error(`${script} did not print ${pattern}; it printed:\n${output}`));
          }
        }, 50);
      });
    },
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Runs a built command to its end. */
export async function runToEnd(script: string, args: string[], env: Record<string, string | undefined>) {
  const running = runBuilt(script, args, env);
  const code = await new Promise<number | null>((resolve) => running.child.once('exit', resolve));
  return { code, output: running.output(), stdout: running.stdout(), stderr: running.stderr() };
}
