import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../src/config/app-config';
import { NODE_FLAGS } from '../src/startup';

describe('HEAP_GROWING_PERCENT', () => {
  it('defaults to 100, takes 0 (V8 own) to 400, and refuses anything else by name', () => {
    expect(loadConfig({}).heapGrowingPercent).toBe(100);
    expect(loadConfig({ HEAP_GROWING_PERCENT: '0' }).heapGrowingPercent).toBe(0);
    expect(loadConfig({ HEAP_GROWING_PERCENT: '400' }).heapGrowingPercent).toBe(400);
    for (const value of ['401', '-1', '12.5', 'half']) {
      expect(() => loadConfig({ HEAP_GROWING_PERCENT: value })).toThrow(ConfigError);
    }
    expect(() => loadConfig({ HEAP_GROWING_PERCENT: 'half' })).toThrow(/HEAP_GROWING_PERCENT="half": must be a whole number from 0 to 400/);
  });
});

describe('NODE_FLAGS', () => {
  it('are on every command that starts the API or the worker: Dockerfile, compose.yaml, npm scripts', () => {
    const root = join(__dirname, '..');
    const flags = NODE_FLAGS.join(' ');
    const dockerCmd = /^CMD (\[.*\])$/m.exec(readFileSync(join(root, 'Dockerfile'), 'utf8'))![1];
    expect(JSON.parse(dockerCmd)).toEqual(['node', ...NODE_FLAGS, 'dist/src/main.js']);
    expect(readFileSync(join(root, 'compose.yaml'), 'utf8')).toContain(JSON.stringify(['node', ...NODE_FLAGS, 'dist/src/worker.js']).replace(/,/g, ', '));
    const scripts = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts as Record<string, string>;
    for (const name of ['start', 'start:prod', 'start:worker']) expect(scripts[name]).toMatch(new RegExp(`(^|&& )node ${flags} dist/src/(main|worker)\\.js$`));
  });
});
