import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { DatabaseTarget } from '../database/database';
import { AppConfig, ConfigError } from './app-config';

/**
 * ENCRYPTION_KEY, or on the embedded database a key generated once into DATA_DIR (which holds
 * the data it protects). A server database without ENCRYPTION_KEY is refused by loadConfig.
 */
export function encryptionKey(config: AppConfig, database: Pick<DatabaseTarget, 'embedded'>): string {
  if (config.encryptionKey) return config.encryptionKey;
  if (!database.embedded) {
    throw new ConfigError('ENCRYPTION_KEY is required with a PostgreSQL server: 64 hex characters (openssl rand -hex 32).');
  }
  const file = join(config.dataDir, 'encryption.key');
  if (!existsSync(file)) {
    mkdirSync(config.dataDir, { recursive: true });
    writeFileSync(file, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  }
  const key = readFileSync(file, 'utf8').trim();
  if (!/^[0-9a-f]{64}$/i.test(key)) throw new ConfigError(`${file} does not hold a 64-hex-character key.`);
  return key;
}
