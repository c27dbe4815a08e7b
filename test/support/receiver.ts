import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { until } from './wait';

export interface Received {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  raw: Buffer;
  body: any;
  /** When the request arrived (ms since the epoch). */
  at: number;
  /** When the answer was handed to the socket: the sender's attempt ends after this. */
  respondedAt: number | null;
}

export interface Reply {
  status?: number;
  sleepMs?: number;
  /** Answers once this settles (after sleepMs, if both are given). */
  hold?: Promise<unknown>;
  location?: string;
}

/** A local HTTP server that records every request and answers as told. */
export class Receiver {
  readonly requests: Received[] = [];
  private reply: (request: Received, index: number) => Reply = () => ({ status: 200 });
  private readonly timers = new Set<NodeJS.Timeout>();

  private constructor(
    private readonly server: http.Server,
    readonly url: string,
  ) {}

  static async start(): Promise<Receiver> {
    const server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const receiver = new Receiver(server, `http://127.0.0.1:${port}`);
    server.on('request', (req, res) => receiver.handle(req, res));
    receivers.push(receiver);
    return receiver;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** Answers every later request with this status. */
  answer(status: number): this {
    this.reply = () => ({ status });
    return this;
  }

  answerWith(reply: (request: Received, index: number) => Reply): this {
    this.reply = reply;
    return this;
  }

  waitFor(count: number, timeoutMs = 15_000): Promise<Received[]> {
    return until(`${count} requests at ${this.url}`, () => this.requests.length >= count && this.requests, timeoutMs);
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const at = Date.now();
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      let body: unknown;
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        body = undefined;
      }
      const received: Received = { method: req.method!, path: req.url!, headers: req.headers, raw, body, at, respondedAt: null };
      const index = this.requests.push(received) - 1;
      const reply = this.reply(received, index);
      const send = () => {
        if (res.destroyed) return;
        received.respondedAt = Date.now();
        res.writeHead(reply.status ?? 200, { 'content-type': 'text/plain', ...(reply.location ? { location: reply.location } : {}) });
        res.end(`answer ${reply.status ?? 200}`);
      };
      const held = () => (reply.hold ? void reply.hold.finally(send) : send());
      if (reply.sleepMs) {
        const timer = setTimeout(() => {
          this.timers.delete(timer);
          held();
        }, reply.sleepMs);
        this.timers.add(timer);
      } else {
        held();
      }
    });
  }

  async close(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

const receivers: Receiver[] = [];

/** Closes every receiver started so far. */
export async function closeReceivers(): Promise<void> {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
}
