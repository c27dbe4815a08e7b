import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The package's version, from its package.json: however the process was started (`npm start`,
 * `node dist/src/main.js` in the container, Jest), not only when npm sets npm_package_version.
 */
function packageVersion(): string {
  // src/common in the sources, dist/src/common when built: the nearest package.json above is ours.
  for (let dir = __dirname; ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
    if (dirname(dir) === dir) throw new Error(`No package.json above ${__dirname}`);
  }
}

export const VERSION = packageVersion();
