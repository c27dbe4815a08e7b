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
