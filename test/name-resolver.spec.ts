import { readFile } from 'node:fs/promises';
import { FairSlots } from '../src/common/fair-slots';
import { ConfigError, loadConfig } from '../src/config/app-config';
import { LookupError, NameResolver } from '../src/webhooks/name-resolver';
import { silentDnsServer, TestDnsServer } from './support/dns-server';

// The resolver against DNS servers on local UDP ports: one that answers from a table and hangs
// on names under .hang.test, and one that never answers anything.

const elapsedSince = (started: number) => Date.now() - started;

async function timed<T>(work: Promise<T>): Promise<{ value?: T; error?: unknown; ms: number }> {
  const started = Date.now();
  try {
    return { value: await work, ms: elapsedSince(started) };
  } catch (error) {
    return { error, ms: elapsedSince(started) };
  }
}

describe('FairSlots', () => {
  const never = new AbortController().signal;

  it('holds each key to its share and the total, and lets waiting keys take turns', async () => {
    const slots = new FairSlots(3, 2);
    const order: string[] = [];
    const take = (key: string) =>
      slots.acquire(key, never).then((release) => {
        order.push(key);
        return release;
      });
    const a1 = await take('a');
    const a2 = await take('a');
    const a3 = take('a'); // over a's share: waits although a slot is free
    const b1 = await take('b');
    expect(order).toEqual(['a', 'a', 'b']);
    expect([slots.used(), slots.used('a'), slots.used('b')]).toEqual([3, 2, 1]);

    const b2 = take('b'); // the total is reached: waits
    const c1 = take('c');
    expect([slots.waiting(), slots.waiting('a'), slots.waiting('b'), slots.waiting('c')]).toEqual([3, 1, 1, 1]);
    b1();
    // A freed slot goes to the first waiting key that is under its share: a is at 2, so b.
    await b2;
    a1();
    await a3;
    a2();
    await c1;
    expect(order).toEqual(['a', 'a', 'b', 'b', 'a', 'c']);
    expect(slots.waiting()).toBe(0);
  });

  it('gives a waiter up when its signal aborts, and never hands it a slot afterwards', async () => {
    const slots = new FairSlots(1, 1);
    const release = await slots.acquire('a', never);
    const gaveUp = new AbortController();
    const waiting = slots.acquire('b', gaveUp.signal);
    gaveUp.abort(new Error('too late'));
    await expect(waiting).rejects.toThrow('too late');
    release();
    expect(slots.used()).toBe(0);
    const next = await slots.acquire('c', never);
    expect(slots.used('c')).toBe(1);
    next();
  });
});

describe('NameResolver', () => {
  let dns: TestDnsServer;
  let silent: TestDnsServer;
  const resolvers: NameResolver[] = [];

  const resolverFor = (server: TestDnsServer, options: Partial<ConstructorParameters<typeof NameResolver>[0]> = {}) => {
    const resolver = new NameResolver({ servers: [server.address], timeoutMs: 1_000, ...options });
    resolvers.push(resolver);
    return resolver;
  };

  beforeAll(async () => {
    dns = await TestDnsServer.start({
      records: {
        'both.test': ['93.184.216.34', '2606:2800:220:1::1'],
        'v4.test': ['8.8.8.8'],
        'other.test': ['1.1.1.1'],
      },
      silent: (name) => name.endsWith('.hang.test'),
    });
    silent = await silentDnsServer();
  });

  afterAll(async () => {
    for (const resolver of resolvers) resolver.close();
    await dns.close();
    await silent.close();
  });

  it('asks the configured server for A and AAAA and answers IPv4 first', async () => {
    const resolver = resolverFor(dns);
    await expect(resolver.resolve('both.test', 'ws-a')).resolves.toEqual([
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1::1', family: 6 },
    ]);
    await expect(resolver.resolve('both.test', 'ws-a', 6)).resolves.toEqual([{ address: '2606:2800:220:1::1', family: 6 }]);
    await expect(resolver.resolve('v4.test', 'ws-a')).resolves.toEqual([{ address: '8.8.8.8', family: 4 }]);
    expect(dns.queriesFor('v4.test').map((q) => q.type).sort()).toEqual(['A', 'AAAA']);
  });

  it('answers localhost and IP literals without asking anyone', async () => {
    const resolver = resolverFor(silent);
    await expect(resolver.resolve('localhost', 'ws')).resolves.toEqual([
      { address: '127.0.0.1', family: 4 },
      { address: '::1', family: 6 },
    ]);
    await expect(resolver.resolve('api.localhost', 'ws', 4)).resolves.toEqual([{ address: '127.0.0.1', family: 4 }]);
    await expect(resolver.resolve('10.1.2.3', 'ws')).resolves.toEqual([{ address: '10.1.2.3', family: 4 }]);
    expect(silent.queries).toEqual([]);
  });

  it('rejects an unknown name with ENOTFOUND', async () => {
    const error = await resolverFor(dns).resolve('nowhere.test', 'ws').catch((e) => e);
    expect(error).toBeInstanceOf(LookupError);
    expect(error.code).toBe('ENOTFOUND');
  });

  it('gives up on a server that never answers after the timeout, with a clean ETIMEOUT', async () => {
    const resolver = resolverFor(silent, { timeoutMs: 300 });
    const { error, ms } = await timed(resolver.resolve('example.test', 'ws'));
    expect(error).toBeInstanceOf(LookupError);
    expect(error).toMatchObject({ code: 'ETIMEOUT', host: 'example.test', message: 'Lookup of example.test failed: no answer within 300 ms' });
    expect(ms).toBeGreaterThanOrEqual(290);
    expect(ms).toBeLessThan(1_000);
    expect(silent.queries.some((q) => q.name === 'example.test')).toBe(true);
    expect(resolver.inFlight()).toBe(0);
  });

  it("keeps one workspace's hanging names to its share: another workspace resolves at once, and the thread pool stays free", async () => {
    const resolver = resolverFor(dns, { timeoutMs: 1_500, maxLookups: 6, maxLookupsPerWorkspace: 2 });
    const started = Date.now();
    const hanging = Array.from({ length: 20 }, (_, i) => resolver.resolve(`n${i}.hang.test`, 'ws-a').catch((e) => e));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(resolver.inFlight('ws-a')).toBe(2);
    expect(resolver.inFlight()).toBe(2);

    // Workspace b, while a's 20 lookups hang or wait for a slot.
    const b = await timed(Promise.all([resolver.resolve('other.test', 'ws-b'), resolver.resolve('v4.test', 'ws-b')]));
    expect(b.value).toEqual([[{ address: '1.1.1.1', family: 4 }], [{ address: '8.8.8.8', family: 4 }]]);
    expect(b.ms).toBeLessThan(300);
    // libuv's pool (file access, crypto) is not what the lookups wait on.
    const file = await timed(readFile(__filename));
    expect(file.ms).toBeLessThan(300);
    expect(elapsedSince(started)).toBeLessThan(1_000);

    // a's lookups all end at their deadline, those that never got a slot included.
    const outcomes = await Promise.all(hanging);
    expect(outcomes.every((e) => e instanceof LookupError && e.code === 'ETIMEOUT')).toBe(true);
    expect(elapsedSince(started)).toBeLessThan(2_500);
    const beforeDeadline = dns.queries.filter((q) => q.name.endsWith('.hang.test') && q.type === 'A' && q.at < started + 1_400);
    expect(beforeDeadline).toHaveLength(2);
    expect(resolver.inFlight()).toBe(0);
  });
});

describe('DNS_SERVERS and DNS_TIMEOUT_MS', () => {
  it('default to the system servers and 3 s', () => {
    expect(loadConfig({})).toMatchObject({ dnsServers: undefined, dnsTimeoutMs: 3_000 });
  });

  it('take IP addresses with optional ports', () => {
    expect(loadConfig({ DNS_SERVERS: '1.1.1.1, 127.0.0.1:5353,[::1]:53,2606:4700::1111', DNS_TIMEOUT_MS: '750' })).toMatchObject({
      dnsServers: ['1.1.1.1', '127.0.0.1:5353', '[::1]:53', '2606:4700::1111'],
      dnsTimeoutMs: 750,
    });
  });

  it.each(['dns.example.com', '300.1.1.1', '127.0.0.1:70000', '127.0.0.1:', ' , '])('refuse DNS_SERVERS=%p, naming the variable', (value) => {
    expect(() => loadConfig({ DNS_SERVERS: value })).toThrow(ConfigError);
    expect(() => loadConfig({ DNS_SERVERS: value })).toThrow(/DNS_SERVERS=.*: must be a comma-separated list of IP addresses/);
  });

  it('refuses a DNS_TIMEOUT_MS that is not a whole number of milliseconds', () => {
    expect(() => loadConfig({ DNS_TIMEOUT_MS: '2s' })).toThrow(/DNS_TIMEOUT_MS="2s": must be a whole number of milliseconds/);
  });
});
