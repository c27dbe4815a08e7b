import * as http from 'node:http';
import * as net from 'node:net';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import type { AppConfig } from '../src/config/app-config';
import { NameResolver } from '../src/webhooks/name-resolver';
import { HttpService } from '@nestjs/axios';
import { RESPONSE_BODY_LIMIT, WebhookSender } from '../src/webhooks/webhook-sender';
import { AxiosWebhookSender } from './bench/axios-sender';
import { TestDnsServer } from './support/dns-server';

// The sender's connections: kept alive between attempts, but only to the addresses each
// attempt resolved and checked. Nothing here connects anywhere but 127.0.0.1; names resolve
// through a DNS server on a local port whose answers the tests change.
//
// Every test runs twice: on WebhookSender, and on the same sender over `HttpService` from
// `@nestjs/axios` that `npm run bench:senders` compares it with (test/bench/axios-sender.ts), so
// the comparison is between senders that keep the same protections.

const records: Record<string, string[]> = { 'flip.test': ['127.0.0.1'], 'loop.test': ['127.0.0.1'] };
let dns: TestDnsServer;
let resolver: NameResolver;

beforeAll(async () => {
  dns = await TestDnsServer.start({ records, silent: (name) => name.endsWith('.hang.test') });
  resolver = new NameResolver({ servers: [dns.address], timeoutMs: 400 });
});

afterAll(async () => {
  resolver.close();
  await dns.close();
});

const senders: WebhookSender[] = [];
afterEach(() => senders.splice(0).forEach((s) => s.onApplicationShutdown()));

const target = (url: string) => ({ workspaceId: 'ws-sender-test', kind: 'webhook' as const, url });
const JSON_HEADERS = { 'Content-Type': 'application/json' };

/** An HTTP server on 127.0.0.1 that counts the connections it accepted and the requests it answered. */
async function countingServer(answer: (req: http.IncomingMessage, res: http.ServerResponse) => void = (_q, r) => r.end('ok')) {
  const server = http.createServer((req, res) => {
    counts.requests += 1;
    answer(req, res);
  });
  const counts = { connections: 0, requests: 0 };
  server.on('connection', () => (counts.connections += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return { port: (server.address() as AddressInfo).port, counts, close };
}

const kinds: [string, (config: AppConfig, resolver: NameResolver) => WebhookSender][] = [
  ['WebhookSender (node:http)', (config, resolver) => new WebhookSender(config, resolver)],
  ['AxiosWebhookSender (HttpService, the bench)', (config, resolver) => new AxiosWebhookSender(config, resolver, new HttpService())],
];

describe.each(kinds)('%s', (_name, make) => {
  function sender(timeoutMs = 2_000, allowPrivate = true): WebhookSender {
    const config = { webhookAllowPrivateTargets: allowPrivate, webhookTimeoutMs: timeoutMs } as AppConfig;
    const made = make(config, resolver);
    senders.push(made);
    return made;
  }

  it('keeps the connection to a target alive between attempts', async () => {
    const server = await countingServer();
    const send = sender();
    try {
      for (let i = 0; i < 3; i++) {
        const result = await send.post(target(`http://loop.test:${server.port}/hook`), JSON_HEADERS, `{"n":${i}}`);
        expect(result).toMatchObject({ statusCode: 200, error: null, responseBody: 'ok' });
      }
      expect(server.counts).toEqual({ connections: 1, requests: 3 });
    } finally {
      await server.close();
    }
  });

  it('resolves the name again at every attempt, and never sends through a connection to an address it no longer gives', async () => {
    const server = await countingServer();
    const send = sender();
    const url = `http://flip.test:${server.port}/hook`;
    const lookups = () => dns.queriesFor('flip.test').filter((q) => q.type === 'A').length;
    const before = lookups();
    try {
      records['flip.test'] = ['127.0.0.1'];
      expect(await send.post(target(url), JSON_HEADERS, '{}')).toMatchObject({ statusCode: 200 });
      // Now the name points where nothing listens: the open connection to 127.0.0.1 is not used.
      records['flip.test'] = ['127.0.0.2'];
      expect(await send.post(target(url), JSON_HEADERS, '{}')).toMatchObject({ statusCode: null, error: 'connection_refused' });
      records['flip.test'] = ['127.0.0.1'];
      expect(await send.post(target(url), JSON_HEADERS, '{}')).toMatchObject({ statusCode: 200 });
      expect(server.counts).toEqual({ connections: 1, requests: 2 });
      expect(lookups() - before).toBe(3);
    } finally {
      records['flip.test'] = ['127.0.0.1'];
      await server.close();
    }
  });

  it('sends once more on a new connection when a kept one turns out closed before any answer', async () => {
    // Answers the first request of each connection and resets the connection at the second.
    let connections = 0;
    let requests = 0;
    const server = net.createServer((socket) => {
      connections += 1;
      let seen = 0;
      socket.on('data', (chunk) => {
        if (!chunk.toString('latin1').startsWith('POST ')) return;
        seen += 1;
        if (seen === 1) {
          requests += 1;
          socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok');
        } else socket.resetAndDestroy();
      });
      socket.on('error', () => {});
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const send = sender();
    try {
      expect(await send.post(target(`http://127.0.0.1:${port}/`), JSON_HEADERS, '{}')).toMatchObject({ statusCode: 200 });
      expect(await send.post(target(`http://127.0.0.1:${port}/`), JSON_HEADERS, '{}')).toMatchObject({ statusCode: 200 });
      expect({ connections, requests }).toEqual({ connections: 2, requests: 2 });
    } finally {
      send.onApplicationShutdown();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('reads a compressed answer as text, and a 429 with its Retry-After', async () => {
    const encoded: Record<string, [string, Buffer]> = {
      '/gzip': ['gzip', gzipSync('gzip answer')],
      '/deflate': ['deflate', deflateSync('deflate answer')],
      '/raw-deflate': ['deflate', deflateRawSync('raw deflate answer')],
      '/br': ['br', brotliCompressSync('brotli answer')],
    };
    const server = await countingServer((req, res) => {
      if (req.url === '/slow') return res.writeHead(429, { 'Retry-After': '7' }).end('later');
      const [encoding, body] = encoded[req.url!];
      res.writeHead(200, { 'Content-Encoding': encoding }).end(body);
    });
    const send = sender();
    try {
      for (const [path, expected] of [
        ['/gzip', 'gzip answer'],
        ['/deflate', 'deflate answer'],
        ['/raw-deflate', 'raw deflate answer'],
        ['/br', 'brotli answer'],
      ]) {
        const ok = await send.post(target(`http://127.0.0.1:${server.port}${path}`), JSON_HEADERS, '{}');
        expect(ok).toMatchObject({ statusCode: 200, responseBody: expected });
      }
      const slow = await send.post(target(`http://127.0.0.1:${server.port}/slow`), JSON_HEADERS, '{}');
      expect(slow).toMatchObject({ statusCode: 429, responseBody: 'later', retryAfterMs: 7_000 });
    } finally {
      await server.close();
    }
  });

  it('counts the lookup in WEBHOOK_TIMEOUT_MS', async () => {
    const started = Date.now();
    const result = await sender(150).post(target('http://late.hang.test/hook'), JSON_HEADERS, '{}');
    expect(result).toMatchObject({ statusCode: null, error: 'timeout' });
    expect(Date.now() - started).toBeLessThan(400);
  });

  it('counts a slow answer body in WEBHOOK_TIMEOUT_MS', async () => {
    const server = await countingServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.write('begun');
    });
    try {
      const started = Date.now();
      const result = await sender(200).post(target(`http://127.0.0.1:${server.port}/`), JSON_HEADERS, '{}');
      expect(result).toMatchObject({ statusCode: null, error: 'timeout' });
      expect(Date.now() - started).toBeLessThan(600);
    } finally {
      await server.close();
    }
  });

  it('sends the body byte for byte, records a redirect without following it, and keeps the first 2 KiB of a long answer', async () => {
    const received: string[] = [];
    const long = 'a'.repeat(RESPONSE_BODY_LIMIT - 1) + 'é' + 'b'.repeat(50_000);
    const server = await countingServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        received.push(`${req.url} ${req.headers['content-length']} ${Buffer.concat(chunks).toString('utf8')}`);
        if (req.url === '/moved') res.writeHead(302, { Location: '/elsewhere' }).end('moved');
        else res.end(long);
      });
    });
    const send = sender();
    const body = ' {"text": "keeps its spaces and ünïcode"} ';
    try {
      const moved = await send.post(target(`http://127.0.0.1:${server.port}/moved`), JSON_HEADERS, body);
      expect(moved).toMatchObject({ statusCode: 302, error: null, responseBody: 'moved' });
      const answer = await send.post(target(`http://127.0.0.1:${server.port}/long`), JSON_HEADERS, body);
      expect(answer.statusCode).toBe(200);
      // 2,048 bytes: the 2,047 a's and the first byte of é, which is no character and is replaced.
      expect(answer.responseBody).toBe('a'.repeat(RESPONSE_BODY_LIMIT - 1) + '\ufffd');
      // The rest was read: the next attempt goes over the same connection.
      expect(await send.post(target(`http://127.0.0.1:${server.port}/long`), JSON_HEADERS, body)).toMatchObject({ statusCode: 200 });
      const length = Buffer.byteLength(body);
      expect(received).toEqual([`/moved ${length} ${body}`, `/long ${length} ${body}`, `/long ${length} ${body}`]);
      expect(server.counts).toEqual({ connections: 1, requests: 3 });
    } finally {
      await server.close();
    }
  });

  it('refuses a private address before connecting, and uses no proxy from the environment', async () => {
    const server = await countingServer();
    const saved = { HTTP_PROXY: process.env.HTTP_PROXY, http_proxy: process.env.http_proxy };
    // A "proxy" that would take the request if it were used.
    const proxy = await countingServer((_req, res) => res.writeHead(502).end('proxied'));
    process.env.HTTP_PROXY = process.env.http_proxy = `http://127.0.0.1:${proxy.port}`;
    try {
      const refused = await sender(2_000, false).post(target(`http://loop.test:${server.port}/hook`), JSON_HEADERS, '{}');
      expect(refused).toMatchObject({ statusCode: null, error: 'unsafe_target' });
      const direct = await sender().post(target(`http://loop.test:${server.port}/hook`), JSON_HEADERS, '{}');
      expect(direct).toMatchObject({ statusCode: 200, responseBody: 'ok' });
      expect([server.counts, proxy.counts]).toEqual([{ connections: 1, requests: 1 }, { connections: 0, requests: 0 }]);
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
      await server.close();
      await proxy.close();
    }
  });
});
