import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { AppError } from '../src/common/app-error';
import {
  UnsafeTargetError,
  checkTargetUrl,
  isPublicUnicast,
  safeAgents,
  safeLookup,
} from '../src/webhooks/address-guard';

// No outside network here: nothing in this file connects anywhere but 127.0.0.1.

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

async function refusal(url: string, options = { allowPrivate: false }): Promise<AppError> {
  try {
    await checkTargetUrl(url, options);
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
    [
      'https://localhost/',
      'url: must resolve to public addresses only (localhost resolves to',
    ],
  ])('refuses %s', async (url, message) => {
    const error = await refusal(url);
    expect(error.code).toBe('invalid_request');
    expect(error.status).toBe(400);
    expect(error.message.startsWith('url: ')).toBe(true);
    expect(error.message.startsWith(message)).toBe(true);
  });

  it('says which loopback address localhost resolved to', async () => {
    const error = await refusal('https://localhost/');
    expect(error.message).toMatch(/resolves to (127\.0\.0\.1|::1), which is loopback\)$/);
  });

  it('accepts a public IP literal without DNS or connecting', async () => {
    await expect(checkTargetUrl('https://8.8.8.8/hook', { allowPrivate: false })).resolves.toBeUndefined();
    await expect(
      checkTargetUrl('https://[2606:4700:4700::1111]/hook', { allowPrivate: false }),
    ).resolves.toBeUndefined();
  });

  it('allows http and private targets only with allowPrivate', async () => {
    await expect(checkTargetUrl('http://127.0.0.1:1234/x', { allowPrivate: true })).resolves.toBeUndefined();
    await expect(checkTargetUrl('https://localhost/x', { allowPrivate: true })).resolves.toBeUndefined();
    expect((await refusal('ftp://x', { allowPrivate: true })).message).toBe('url: must use http or https');
    expect((await refusal('not a url', { allowPrivate: true })).message).toBe('url: must be a valid URL');
    const strict = await refusal('http://127.0.0.1:1234/x', { allowPrivate: false });
    expect(strict.message).toBe('url: must use https');
  });

  it('can require https even when private targets are allowed', async () => {
    await expect(
      checkTargetUrl('http://127.0.0.1/', { allowPrivate: true, requireHttps: true }),
    ).rejects.toMatchObject({ message: 'url: must use https' });
  });
});

describe('safeLookup', () => {
  const lookup = (allowPrivate: boolean, host: string, all: boolean) =>
    new Promise<{ err: Error | null; address: unknown; family?: number }>((resolve) => {
      safeLookup(allowPrivate)(host, { all }, (err: Error | null, address: unknown, family?: number) =>
        resolve({ err, address, family }),
      );
    });

  it.each([true, false])('refuses localhost (all: %p)', async (all) => {
    const { err } = await lookup(false, 'localhost', all);
    expect(err).toBeInstanceOf(UnsafeTargetError);
    expect(err?.message).toContain('localhost');
  });

  it.each(['127.0.0.1', '::1', '169.254.169.254', '::ffff:127.0.0.1'])('refuses literal %s', async (host) => {
    const { err } = await lookup(false, host, false);
    expect(err).toBeInstanceOf(UnsafeTargetError);
  });

  it('answers both callback shapes when allowed', async () => {
    const one = await lookup(true, '127.0.0.1', false);
    expect(one).toEqual({ err: null, address: '127.0.0.1', family: 4 });
    const all = await lookup(true, '127.0.0.1', true);
    expect(all.err).toBeNull();
    expect(all.address).toEqual([{ address: '127.0.0.1', family: 4 }]);
  });
});

describe('safeAgents (at every connection)', () => {
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
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  beforeEach(() => {
    hits = 0;
  });

  function get(url: string, agent: http.Agent): Promise<{ status?: number; error?: Error }> {
    return new Promise((resolve) => {
      const req = http.request(url, { agent, method: 'POST' }, (res) => {
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
      const { httpAgent } = safeAgents(false);
      const result = await get(`http://${host}:${port}/`, httpAgent);
      expect(result.status).toBeUndefined();
      expect(result.error).toBeInstanceOf(UnsafeTargetError);
      expect(hits).toBe(0);
    },
  );

  it('refuses 127.0.0.1 over the https agent too, before any TLS', async () => {
    const { httpsAgent } = safeAgents(false);
    const result = await new Promise<Error | undefined>((resolve) => {
      const https = require('node:https') as typeof import('node:https');
      const req = https.request(`https://127.0.0.1:${port}/`, { agent: httpsAgent }, () => resolve(undefined));
      req.on('error', resolve);
      req.end();
    });
    expect(result).toBeInstanceOf(UnsafeTargetError);
    expect(hits).toBe(0);
  });

  it('refuses a Unix socket path', async () => {
    const { httpAgent } = safeAgents(false);
    const result = await new Promise<Error | undefined>((resolve) => {
      const req = http.request({ socketPath: '/tmp/nowhere.sock', path: '/', agent: httpAgent }, () =>
        resolve(undefined),
      );
      req.on('error', resolve);
      req.end();
    });
    expect(result).toBeInstanceOf(UnsafeTargetError);
  });

  it.each(['localhost', '127.0.0.1'])('reaches http://%s:<port>/ when private targets are allowed', async (host) => {
    const { httpAgent } = safeAgents(true);
    const result = await get(`http://${host}:${port}/`, httpAgent);
    expect(result.error).toBeUndefined();
    expect(result.status).toBe(200);
    expect(hits).toBe(1);
  });
});
