import { ConfigError } from './config/app-config';
import { DataDirInUseError } from './database/embedded-postgres';

/** A start-up failure the operator can act on gets one clear line; anything else, its stack. */
export function exitOnStartupError(error: unknown): never {
  if (error instanceof ConfigError || error instanceof DataDirInUseError) {
    process.stderr.write(`${error.message}\n`);
  } else {
    process.stderr.write(`Chorus could not start: ${error instanceof Error ? error.stack : String(error)}\n`);
  }
  process.exit(1);
}
