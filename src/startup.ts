import { ConfigError } from './config/app-config';
import { DataDirInUseError } from './database/embedded-postgres';

/** A failure the operator can act on gets one clear line; anything else, its stack. */
export function exitOnStartupError(error: unknown, what = 'Chorus could not start'): never {
  if (error instanceof ConfigError || error instanceof DataDirInUseError) {
    process.stderr.write(`${error.message}\n`);
  } else {
    process.stderr.write(`${what}: ${error instanceof Error ? error.stack : String(error)}\n`);
  }
  process.exit(1);
}
