import * as http from 'node:http';
import * as net from 'node:net';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import type { AppConfig } from '../src/config/app-config';
import { NameResolver } from '../src/webhooks/name-resolver';
import { WebhookSender } from '../src/webhooks/webhook-sender';
import { TestDnsServer } from './support/dns-server';

// The sender's connections: kept alive between attempts, but only to the addresses each
// attempt resolved and checked. Nothing here connects anywhere but 127.0.0.1; names resolve
// through a DNS server on a local port whose answers the tests change.

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

function sender(timeoutMs = 2_000): WebhookSender {
  const config = { webhookAllowPrivateTargets: true, webhookTimeoutMs: timeoutMs } as AppConfig;
  const made = new WebhookSender(config, resolver);
  senders.push(made);
  return made;
}

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

describe('WebhookSender', () => {
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
    try {
      records['flip.test'] = ['127.0.0.1'];
      expect(await send.post(target(url), JSON_HEADERS, '{}')).toMatchObject({ statusCode: 200 });
      // Now the name points where nothing listens: the open connection to 127.0.0.1 is not used.
      records['flip.test'] = ['127.0.0.2'];
      expect(await send.post(target(url), JSON_HEADERS, '{}')).toMatchObject({ statusCode: null, error: 'connection_refused' });
      records['flip.test'] = ['127.0.0.1'];
      expect(await send.post(target(url), JSON_HEADERS, '{}')).toMatchObject({ statusCode: 200 });
      expect(server.counts).toEqual({ connections: 1, requests: 2 });
      expect(dns.queriesFor('flip.test').filter((q) => q.type === 'A')).toHaveLength(3);
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
});
