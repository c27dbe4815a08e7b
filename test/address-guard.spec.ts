import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Logger } from '@nestjs/common';
import { AppError } from '../src/common/app-error';
import {
  TargetGuard,
  UnsafeTargetError,
  attemptRefusal,
  checkTargetUrl,
  isPublicUnicast,
  pinnedAgent,
  resolveTarget,
} from '../src/webhooks/address-guard';
import { NameResolver } from '../src/webhooks/name-resolver';
import { TestDnsServer } from './support/dns-server';

// No outside network here: nothing in this file connects anywhere but 127.0.0.1, and names
// resolve through a DNS server on a local port.

let dns: TestDnsServer;
let resolver: NameResolver;

beforeAll(async () => {
  dns = await TestDnsServer.start({
    records: {
      'public.test': ['93.184.216.34'],
      'internal.test': ['10.1.2.3'],
      'mixed.test': ['8.8.8.8', '172.18.0.2'],
      'v6internal.test': ['93.184.216.34', 'fd12::7'],
      'loop.test': ['127.0.0.1'],
    },
    silent: (name) => name.endsWith('.hang.test'),
  });
  resolver = new NameResolver({ servers: [dns.address], timeoutMs: 400 });
});

afterAll(async () => {
  resolver.close();
  await dns.close();
});

const guard = (allowPrivate: boolean): TargetGuard => ({ allowPrivate, resolver, workspaceId: 'ws-guard-test' });

describe('isPublicUnicast', () => {
  it.each([
    '127.0.0.1',
    '10.0.0.1',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '255.255.255.255',
    '224.0.0.1',
    '192.0.2.1',
    '198.18.0.1',
    '240.0.0.1',
    '::1',
    '::',
    'fc00::1',
    'fd12::1',
    'fe80::1',
    'fe80::1%eth0',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '::7f00:1',
    '64:ff9b::7f00:1',
    '64:ff9b:1::1',
    '2002:7f00:1::1',
    '2001::1',
    '2001:db8::1',
    'ff02::1',
    '2130706433',
    '0177.0.0.1',
    '0x7f000001',
    'localhost',
    '',
    'not an address',
  ])('refuses %p', (address) => {
    expect(isPublicUnicast(address)).toBe(false);
  });

  it.each(['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111'])('accepts %p', (address) => {
    expect(isPublicUnicast(address)).toBe(true);
  });
});

async function refusal(url: string, allowPrivate = false): Promise<AppError> {
  try {
    await checkTargetUrl('webhook', url, guard(allowPrivate));
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error(`${url} was accepted`);
}

describe('checkTargetUrl (at save)', () => {
  it.each([
    ['http://example.com/', 'url: must use https'],
    ['ftp://x', 'url: must use https'],
    ['not a url', 'url: must be a valid URL'],
    ['https://user:pw@8.8.8.8/', 'url: must not contain credentials'],
    ['https://127.0.0.1/', 'url: must be a public address (127.0.0.1 is loopback)'],
    ['https://2130706433/', 'url: must be a public address (127.0.0.1 is loopback)'],
    ['https://0177.0.0.1/', 'url: must be a public address (127.0.0.1 is loopback)'],
    ['https://0x7f000001/', 'url: must be a public address (127.0.0.1 is loopback)'],
    ['https://0x7f.1/', 'url: must be a public address (127.0.0.1 is loopback)'],
    ['https://0/', 'url: must be a public address (0.0.0.0 is unspecified)'],
    ['https://10.0.0.1/', 'url: must be a public address (10.0.0.1 is private)'],
    ['https://100.64.0.1/', 'url: must be a public address (100.64.0.1 is carrier-grade NAT)'],
    ['https://[::1]/', 'url: must be a public address (::1 is loopback)'],
    ['https://[::ffff:127.0.0.1]/', 'url: must be a public address (::ffff:7f00:1 is IPv4-mapped)'],
    ['https://[64:ff9b::7f00:1]/', 'url: must be a public address (64:ff9b::7f00:1 is NAT64)'],
    ['https://[2002:7f00:1::1]/', 'url: must be a public address (2002:7f00:1::1 is 6to4)'],
    ['https://[fd12::1]/', 'url: must be a public address (fd12::1 is unique-local)'],
    [
      'https://169.254.169.254/latest/meta-data',
      'url: must be a public address (169.254.169.254 is link-local)',
    ],
    ['https://localhost/', 'url: must resolve to public addresses only (localhost does not)'],
    ['https://internal.test/hook', 'url: must resolve to public addresses only (internal.test does not)'],
    ['https://nowhere.test/hook', 'url: does not resolve (nowhere.test)'],
  ])('refuses %s', async (url, message) => {
    const error = await refusal(url);
    expect(error.code).toBe('invalid_request');
    expect(error.status).toBe(400);
    expect(error.message.startsWith('url: ')).toBe(true);
    expect(error.message).toBe(message);
  });

  it('never names a resolved address in the message; the server log has it', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      for (const [url, address] of [
        ['https://internal.test/', '10.1.2.3'],
        ['https://mixed.test/', '172.18.0.2'],
        ['https://v6internal.test/', 'fd12::7'],
        ['https://loop.test/', '127.0.0.1'],
      ]) {
        const error = await refusal(url);
        expect(error.message).toBe(`url: must resolve to public addresses only (${new URL(url).hostname} does not)`);
        expect(error.message).not.toContain(address);
        expect(warn).toHaveBeenLastCalledWith(expect.stringContaining(`resolves to ${address}`));
        expect(warn.mock.lastCall?.[0]).toContain('ws-guard-test');
      }
    } finally {
      warn.mockRestore();
    }
  });

  it('answers a name whose server never answers with a clean 400 after DNS_TIMEOUT_MS', async () => {
    const started = Date.now();
    const error = await refusal('https://slow.hang.test/hook');
    expect(error.code).toBe('invalid_request');
    expect(error.message).toBe('url: slow.hang.test did not resolve within 400 ms; try again later');
    expect(Date.now() - started).toBeGreaterThanOrEqual(390);
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('accepts a public IP literal, or a name with only public addresses, without connecting', async () => {
    await expect(checkTargetUrl('webhook', 'https://8.8.8.8/hook', guard(false))).resolves.toBeUndefined();
    await expect(checkTargetUrl('webhook', 'https://[2606:4700:4700::1111]/hook', guard(false))).resolves.toBeUndefined();
    await expect(checkTargetUrl('webhook', 'https://public.test/hook', guard(false))).resolves.toBeUndefined();
    expect(dns.queriesFor('public.test').length).toBeGreaterThan(0);
  });

  it('allows http and private targets only with allowPrivate, and then makes no lookup', async () => {
    const before = dns.queries.length;
    await expect(checkTargetUrl('webhook', 'http://127.0.0.1:1234/x', guard(true))).resolves.toBeUndefined();
    await expect(checkTargetUrl('webhook', 'https://localhost/x', guard(true))).resolves.toBeUndefined();
    await expect(checkTargetUrl('webhook', 'https://internal.test/x', guard(true))).resolves.toBeUndefined();
    expect(dns.queries.length).toBe(before);
    expect((await refusal('ftp://x', true)).message).toBe('url: must use http or https');
    expect((await refusal('not a url', true)).message).toBe('url: must be a valid URL');
    const strict = await refusal('http://127.0.0.1:1234/x', false);
    expect(strict.message).toBe('url: must use https');
  });
});

describe('attemptRefusal (at every attempt)', () => {
  it.each([
    ['webhook', 'http://127.0.0.1:8080/hook'],
    ['webhook', 'http://public.test/hook'],
    ['slack', 'http://127.0.0.1:8080/services/T0/B0/X'],
    ['slack', 'https://chat.example.com/services/T0/B0/X'],
    ['discord', 'https://chat.example.com/api/webhooks/1/abc?wait=true'],
  ] as const)('refuses %s %s once the switch is off', (kind, url) => {
    expect(attemptRefusal(kind, url, true)).toBeNull();
    expect(attemptRefusal(kind, url, false)).toBe('unsafe_target');
  });

  it.each([
    ['webhook', 'https://public.test/hook'],
    ['slack', 'https://hooks.slack.com/services/T0/B0/XXXX'],
    ['discord', 'https://discord.com/api/webhooks/123/abc?wait=true'],
  ] as const)('lets %s %s through to the address check', (kind, url) => {
    expect(attemptRefusal(kind, url, false)).toBeNull();
  });

  it('refuses what no switch allows', () => {
    expect(attemptRefusal('webhook', 'ftp://public.test/', true)).toBe('unsafe_target');
    expect(attemptRefusal('webhook', 'not a url', true)).toBe('unsafe_target');
    expect(attemptRefusal('webhook', 'https://user:pw@public.test/hook', true)).toBe('unsafe_target');
  });
});

describe('resolveTarget (at every attempt)', () => {
  const resolve = (allowPrivate: boolean, host: string) =>
    resolveTarget(host, guard(allowPrivate)).then(
      (addresses) => ({ err: null, addresses }),
      (err: Error & { code?: string }) => ({ err, addresses: null }),
    );

  it('refuses localhost', async () => {
    const { err } = await resolve(false, 'localhost');
    expect(err).toBeInstanceOf(UnsafeTargetError);
    expect(err?.message).toContain('localhost');
  });

  it.each(['127.0.0.1', '::1', '[::1]', '169.254.169.254', '::ffff:127.0.0.1'])('refuses literal %s', async (host) => {
    const { err } = await resolve(false, host);
    expect(err).toBeInstanceOf(UnsafeTargetError);
  });

  it('refuses a name when any of its addresses is not public, naming it only in the error for the log', async () => {
    const { err } = await resolve(false, 'mixed.test');
    expect(err).toBeInstanceOf(UnsafeTargetError);
    expect(err?.message).toBe('Refused to connect to mixed.test (172.18.0.2): private address, not public unicast');
  });

  it('answers every address of a public name, and passes lookup errors on', async () => {
    expect(await resolve(false, 'public.test')).toEqual({ err: null, addresses: [{ address: '93.184.216.34', family: 4 }] });
    expect(await resolve(false, 'nowhere.test')).toMatchObject({ err: { code: 'ENOTFOUND' }, addresses: null });
    expect(await resolve(true, 'late.hang.test')).toMatchObject({ err: { code: 'ETIMEOUT' }, addresses: null });
  });

  it('answers private addresses when allowed', async () => {
    expect(await resolve(true, '127.0.0.1')).toEqual({ err: null, addresses: [{ address: '127.0.0.1', family: 4 }] });
    expect(await resolve(true, 'loop.test')).toEqual({ err: null, addresses: [{ address: '127.0.0.1', family: 4 }] });
  });
});

describe('pinnedAgent (at every connection)', () => {
  let server: http.Server;
  let port: number;
  let hits = 0;

  beforeAll(async () => {
    server = http.createServer((_req, res) => {
      hits += 1;
      res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  beforeEach(() => {
    hits = 0;
  });

  const LOOPBACK = [{ address: '127.0.0.1', family: 4 as const }];
  const agent = (host: string, allowPrivate: boolean, addresses = LOOPBACK, protocol: 'http:' | 'https:' = 'http:') =>
    pinnedAgent(protocol, host, addresses, allowPrivate, { idleMs: 1_000, maxFreeSockets: 4 });

  function get(url: string, via: http.Agent): Promise<{ status?: number; error?: Error }> {
    return new Promise((resolve) => {
      const req = http.request(url, { agent: via, method: 'POST' }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode }));
      });
      req.on('error', (error) => resolve({ error }));
      req.end('{}');
    });
  }

  it.each(['localhost', '127.0.0.1', '[::ffff:127.0.0.1]'])(
    'refuses http://%s:<port>/ before connecting',
    async (host) => {
      const result = await get(`http://${host}:${port}/`, agent(host, false));
      expect(result.status).toBeUndefined();
      expect(result.error).toBeInstanceOf(UnsafeTargetError);
      expect(hits).toBe(0);
    },
  );

  it('refuses 127.0.0.1 over https too, before any TLS', async () => {
    const result = await new Promise<Error | undefined>((resolve) => {
      const https = require('node:https') as typeof import('node:https');
      const req = https.request(`https://127.0.0.1:${port}/`, { agent: agent('127.0.0.1', false, LOOPBACK, 'https:') }, () =>
        resolve(undefined),
      );
      req.on('error', resolve);
      req.end();
    });
    expect(result).toBeInstanceOf(UnsafeTargetError);
    expect(hits).toBe(0);
  });

  it('refuses a Unix socket path', async () => {
    const result = await new Promise<Error | undefined>((resolve) => {
      const req = http.request({ socketPath: '/tmp/nowhere.sock', path: '/', agent: agent('loop.test', false) }, () => resolve(undefined));
      req.on('error', resolve);
      req.end();
    });
    expect(result).toBeInstanceOf(UnsafeTargetError);
  });

  it('refuses a name pinned to loopback before connecting', async () => {
    const result = await get(`http://loop.test:${port}/`, agent('loop.test', false));
    expect(result.error).toBeInstanceOf(UnsafeTargetError);
    expect(hits).toBe(0);
  });

  it('connects only for the host it was pinned for, without a lookup of its own', async () => {
    const result = await get(`http://other.test:${port}/`, agent('loop.test', true));
    expect(result.error).toMatchObject({ code: 'ENOTFOUND' });
    expect(hits).toBe(0);
    const queries = dns.queries.length;
    // pinned.test is in no DNS table: reaching it shows the agent connects to the addresses it was given.
    expect(await get(`http://pinned.test:${port}/`, agent('pinned.test', true))).toEqual({ status: 200 });
    expect(dns.queries.length).toBe(queries);
  });

  it.each(['localhost', '127.0.0.1', 'loop.test'])('reaches http://%s:<port>/ when private targets are allowed', async (host) => {
    const result = await get(`http://${host}:${port}/`, agent(host, true));
    expect(result.error).toBeUndefined();
    expect(result.status).toBe(200);
    expect(hits).toBe(1);
  });
});
