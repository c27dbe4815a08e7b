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

/**
 * Runs a built entry point of the project (`dist/src/<script>.js`) with the given environment;
 * `root` is another copy of the project, if given.
 */
export function runBuilt(script: string, args: string[], env: Record<string, string | undefined>, root = ROOT): Running {
  return runIn(root, process.execPath, [join(root, 'dist', 'src', `${script}.js`), ...args], env, script);
}

/** Runs a command (`npm`, say) in a folder with the given environment. */
export function runIn(cwd: string, command: string, args: string[], env: Record<string, string | undefined>, name = command): Running {
  const script = name;
  const child = spawn(command, args, {
    cwd,
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

/** Waits for a command to end. */
export async function toEnd(running: Running) {
  const code = running.child.exitCode ?? (await new Promise<number | null>((resolve) => running.child.once('exit', resolve)));
  return { code, output: running.output(), stdout: running.stdout(), stderr: running.stderr() };
}

/** Runs a built command to its end. */
export const runToEnd = (script: string, args: string[], env: Record<string, string | undefined>) =>
  toEnd(runBuilt(script, args, env));
