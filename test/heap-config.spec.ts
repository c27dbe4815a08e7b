import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../src/config/app-config';

describe('HEAP_GROWING_PERCENT', () => {
  it('defaults to 30, takes 0 (V8 own) to 400, and refuses anything else by name', () => {
    expect(loadConfig({}).heapGrowingPercent).toBe(30);
    expect(loadConfig({ HEAP_GROWING_PERCENT: '0' }).heapGrowingPercent).toBe(0);
    expect(loadConfig({ HEAP_GROWING_PERCENT: '400' }).heapGrowingPercent).toBe(400);
    for (const value of ['401', '-1', '12.5', 'half']) {
      expect(() => loadConfig({ HEAP_GROWING_PERCENT: value })).toThrow(ConfigError);
    }
    expect(() => loadConfig({ HEAP_GROWING_PERCENT: 'half' })).toThrow(/HEAP_GROWING_PERCENT="half": must be a whole number from 0 to 400/);
  });
});

describe('tuneHeap', () => {
  // The built module, as Chorus starts it (npm test builds first).
  const startup = join(__dirname, '..', 'dist', 'src', 'startup.js');
  /**
   * Whether an object made at an allocation site whose objects all survived, in a young
   * generation that is at its full size, is still born young once that site's code is
   * optimized: V8's allocation-site pretenuring would put it in the old generation, as it did
   * with pg's rows arrays under load (docs/performance.md, issue 30).
   */
  const bornYoung = (tuned: boolean) =>
    execFileSync(
      process.execPath,
      [
        '--allow-natives-syntax',
        '--min-semi-space-size=1',
        '--max-semi-space-size=1',
        '-e',
        `${tuned ? `require(${JSON.stringify(startup)}).tuneHeap({ heapGrowingPercent: 30 });` : ''}
         function make() { return { rows: [1, 2, 3] }; }
         const kept = [];
         for (let i = 0; i < 200000; i++) kept.push(make());
         %PrepareFunctionForOptimization(make); make(); make(); %OptimizeFunctionOnNextCall(make);
         const made = make();
         process.stdout.write(String(%InYoungGeneration(made) && %InYoungGeneration(made.rows)));`,
      ],
      { encoding: 'utf8' },
    );

  it('turns allocation-site pretenuring off, so that objects are born young however long their elders lived', () => {
    expect(bornYoung(false)).toBe('false'); // V8's default, which the test would not tell apart otherwise
    expect(bornYoung(true)).toBe('true');
  });
});
