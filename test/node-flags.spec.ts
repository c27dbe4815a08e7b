import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RUNTIME_ENV } from './bench/runtime';

// Chorus's V8 flags (docs/operating.md, "Memory") are read only when Node starts, so every way of starting it
// must pass them: package.json's start scripts, and the image's NODE_OPTIONS. The benches start
// Chorus with start:prod's, and with the environment the image sets beside them.
const root = join(__dirname, '..');
const scripts: Record<string, string> = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts;
const flagsOf = (command: string) => command.split(' ').filter((word) => word.startsWith('--'));

describe('node flags', () => {
  it('start:prod starts Chorus with the young generation capped', () => {
    expect(flagsOf(scripts['start:prod'])).toEqual(['--max-semi-space-size=8']);
  });

  it('start and start:worker use the same flags as start:prod', () => {
    for (const name of ['start', 'start:worker']) {
      const node = scripts[name].split('&&').pop()!;
      expect(flagsOf(node)).toEqual(flagsOf(scripts['start:prod']));
    }
  });

  it('the image sets them in NODE_OPTIONS, for any command it runs', () => {
    const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
    expect(dockerfile).toContain(`NODE_OPTIONS=${flagsOf(scripts['start:prod']).join(' ')} `);
  });

  it('the image sets the environment the benches start Chorus with', () => {
    const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
    for (const [name, value] of Object.entries(RUNTIME_ENV)) expect(dockerfile).toContain(`${name}=${value} `);
  });
});
