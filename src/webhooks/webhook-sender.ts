import * as http from 'node:http';
import * as https from 'node:https';
import { Transform, type Readable } from 'node:stream';
import * as zlib from 'node:zlib';
import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { VERSION } from '../common/version';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { attemptRefusal, pinnedAgent, resolveTarget } from './address-guard';
import { NameResolver, ResolvedAddress } from './name-resolver';
import type { EndpointKind } from '../outbox/webhook-endpoint.entity';
import type { AttemptError } from './attempt-errors';

export const RESPONSE_BODY_LIMIT = 2048;
export const USER_AGENT = `Chorus-Webhooks/${VERSION}`;
/** An idle kept-alive connection closes after this (before the 5 s a Node server keeps one). */
export const KEEP_ALIVE_IDLE_MS = 4_000;
/** Idle connections kept per target (host, port and addresses). */
const FREE_SOCKETS_PER_TARGET = 32;

export interface SendResult {
  /** The HTTP status, or null when there was no answer. */
  statusCode: number | null;
  /** Why there was no usable answer. */
  error: AttemptError | null;
  durationMs: number;
  /** The first 2 KiB of the answer's body. */
  responseBody: string | null;
  /** How long the receiver asked us to wait (429: `Retry-After`, or Discord's `retry_after`). */
  retryAfterMs: number | null;
}

/** An answer's head, and its body as sent or decompressed (read by the sender up to the cap). */
export interface Answer {
  statusCode: number;
  /** The `Retry-After` header, as received. */
  retryAfter: unknown;
  body: Readable;
}

/** Where an attempt goes: the endpoint's kind decides which rules its URL must meet. */
export interface SendTarget {
  workspaceId: string;
  kind: EndpointKind;
  url: string;
}

/** `Retry-After` in seconds, or Discord's JSON `retry_after` (seconds, fractional). */
function retryAfter(header: unknown, body: string): number | null {
  try {
    const parsed = JSON.parse(body) as { retry_after?: unknown };
    if (typeof parsed.retry_after === 'number' && parsed.retry_after >= 0) return Math.ceil(parsed.retry_after * 1000);
  } catch {
    // not JSON: Slack answers 429 with plain text and the header
  }
  const seconds = Number(header);
  return typeof header === 'string' && Number.isFinite(seconds) && seconds >= 0 ? Math.ceil(seconds * 1000) : null;
}

export function errorClass(error: unknown): AttemptError {
  const code = (error as NodeJS.ErrnoException).code ?? '';
  if (code === 'ERR_UNSAFE_TARGET') return 'unsafe_target';
  if (code === 'ECONNABORTED' || code === 'ETIMEDOUT' || code === 'ERR_CANCELED' || code === 'ABORT_ERR') return 'timeout';
  if (code === 'ECONNREFUSED') return 'connection_refused';
  if (code === 'ECONNRESET' || code === 'EPIPE') return 'connection_reset';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'ETIMEOUT') return 'dns_error';
  if (/CERT|TLS|SSL|SELF_SIGNED/i.test(code)) return 'tls_error';
  return 'network_error';
}

/** Reads at most `limit` bytes of a body, and the rest to the end (so the answer is complete). */
async function readStart(stream: Readable, limit: number): Promise<string> {
  const kept: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    if (size < limit) {
      const buffer = Buffer.from(chunk).subarray(0, limit - size);
      kept.push(buffer);
      size += buffer.length;
    }
  }
  // Stored in a text column: PostgreSQL takes no NUL characters.
  return Buffer.concat(kept).toString('utf8').replaceAll('\u0000', '');
}

/** The body of an answer as sent, or decompressed when it says it is compressed. */
function answerBody(response: http.IncomingMessage): Readable {
  const encoding = String(response.headers['content-encoding'] ?? '').trim().toLowerCase();
  if (response.statusCode === 204) return response;
  // A truncated compressed answer still gives what arrived.
  const lenient = { flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH };
  const streams: Transform[] = [];
  if (encoding === 'gzip' || encoding === 'x-gzip' || encoding === 'compress' || encoding === 'x-compress') {
    streams.push(zlib.createUnzip(lenient));
  } else if (encoding === 'deflate') {
    streams.push(zlibHeader(), zlib.createUnzip(lenient));
  } else if (encoding === 'br') {
    streams.push(zlib.createBrotliDecompress({ flush: zlib.constants.BROTLI_OPERATION_FLUSH, finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH }));
  }
  let body: Readable = response;
  for (const stream of streams) {
    body.on('error', (error) => stream.destroy(error));
    body = body.pipe(stream);
  }
  return body;
}

/** `deflate` as some servers send it, raw (without the zlib header): given the header zlib reads first. */
function zlibHeader(): Transform {
  let first = true;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      if (first && chunk.length > 0) {
        first = false;
        if ((chunk[0] & 0x0f) !== 0x08) this.push(Buffer.from([0x78, 0x9c]));
      }
      done(null, chunk);
    },
  });
}

/**
 * POSTs a delivery: never follows redirects, sends only to URLs that today's rules allow (the
 * scheme and the Slack/Discord hosts, checked at every attempt), connects only to addresses the
 * address guard allows (resolved by the shared NameResolver as the target's workspace and
 * checked at every attempt, before any connection), and gives up after WEBHOOK_TIMEOUT_MS for
 * the whole exchange, lookup and body included. No proxy from the environment is used.
 *
 * Connections are kept alive between attempts (a TCP and TLS handshake saved per attempt), in
 * an agent per target host, port and resolved addresses (`pinnedAgent`): an attempt reuses a
 * connection only to addresses that its own lookup gave and its own check passed.
 */
@Injectable()
export class WebhookSender implements OnApplicationShutdown {
  private readonly agents = new Map<string, http.Agent>();
  /** Agents are swept (those with no connection left) when there are more than this. */
  private sweepAbove = 64;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly resolver: NameResolver,
  ) {}

  async post(target: SendTarget, headers: Record<string, string>, body: string): Promise<SendResult> {
    const allowPrivate = this.config.webhookAllowPrivateTargets;
    const refused = attemptRefusal(target.kind, target.url, allowPrivate);
    if (refused) return { statusCode: null, error: refused, durationMs: 0, responseBody: null, retryAfterMs: null };
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), this.config.webhookTimeoutMs);
    try {
      const url = new URL(target.url);
      const addresses = await untilAborted(
        resolveTarget(url.hostname, { allowPrivate, resolver: this.resolver, workspaceId: target.workspaceId }),
        abort.signal,
      );
      const agent = this.agent(url, addresses, allowPrivate);
      const answer = await this.exchange(url, agent, headers, body, abort.signal);
      const responseBody = await readStart(answer.body, RESPONSE_BODY_LIMIT);
      return {
        statusCode: answer.statusCode,
        error: null,
        durationMs: elapsed(),
        responseBody,
        retryAfterMs: answer.statusCode === 429 ? retryAfter(answer.retryAfter, responseBody) : null,
      };
    } catch (error) {
      const timedOut = abort.signal.aborted;
      return {
        statusCode: null,
        error: timedOut ? 'timeout' : errorClass(error),
        durationMs: elapsed(),
        responseBody: null,
        retryAfterMs: null,
      };
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * One POST through `agent` (pinned to the checked addresses), its answer's status and its body
   * as text bytes (decompressed). `signal` aborts it, body included.
   */
  protected async exchange(url: URL, agent: http.Agent, headers: Record<string, string>, body: string, signal: AbortSignal): Promise<Answer> {
    const response = await exchange(url, agent, headers, body, signal);
    return { statusCode: response.statusCode!, retryAfter: response.headers['retry-after'], body: answerBody(response) };
  }

  /** The kept-alive agent for this URL's scheme, host and port, bound to these checked addresses. */
  private agent(url: URL, addresses: ResolvedAddress[], allowPrivate: boolean): http.Agent {
    const protocol = url.protocol as 'http:' | 'https:';
    const port = url.port || (protocol === 'https:' ? '443' : '80');
    const pinned = addresses.map((a) => a.address).sort();
    const key = `${protocol}//${url.hostname}:${port} ${pinned.join(' ')}`;
    let agent = this.agents.get(key);
    if (!agent) {
      if (this.agents.size >= this.sweepAbove) this.sweep();
      agent = pinnedAgent(protocol, url.hostname, addresses, allowPrivate, {
        idleMs: KEEP_ALIVE_IDLE_MS,
        maxFreeSockets: FREE_SOCKETS_PER_TARGET,
      });
      this.agents.set(key, agent);
    }
    return agent;
  }

  /** Forgets the agents that hold no connection (their idle ones closed); the rest stay. */
  private sweep(): void {
    const count = (sockets: NodeJS.ReadOnlyDict<unknown[]>) => Object.values(sockets).reduce((n, list) => n + (list?.length ?? 0), 0);
    for (const [key, agent] of this.agents) {
      if (count(agent.sockets) + count(agent.freeSockets) + count(agent.requests) === 0) this.agents.delete(key);
    }
    this.sweepAbove = Math.max(64, 2 * this.agents.size);
  }

  /** Closes the connections kept alive. */
  onApplicationShutdown(): void {
    for (const agent of this.agents.values()) agent.destroy();
    this.agents.clear();
  }
}

/** The promise, or a rejection as soon as the signal aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * Whether a request failed because the kept-alive connection it was written to had been closed
 * by the receiver while idle: reset or broken on a reused socket, before any answer began and
 * before the attempt's time ran out. Such a request never reached the receiver.
 */
export function closedWhileIdle(error: { code?: string }, reusedBeforeAnswer: boolean, signal: AbortSignal): boolean {
  return reusedBeforeAnswer && !signal.aborted && (error.code === 'ECONNRESET' || error.code === 'EPIPE');
}

/**
 * One POST and its answer's head. A kept-alive connection that the receiver closed while it was
 * idle fails as soon as it is written to, before any answer: that request never reached the
 * receiver, and goes once more on a new connection.
 */
function exchange(
  url: URL,
  agent: http.Agent,
  headers: Record<string, string>,
  body: string,
  signal: AbortSignal,
  retried = false,
): Promise<http.IncomingMessage> {
  const payload = Buffer.from(body, 'utf8');
  const request = url.protocol === 'https:' ? https.request : http.request;
  return new Promise<http.IncomingMessage>((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      agent,
      signal,
      headers: {
        Accept: 'application/json, text/plain, */*',
        'Accept-Encoding': 'gzip, compress, deflate, br',
        ...headers,
        'Content-Length': String(payload.length),
      },
    });
    let answered = false;
    req.once('response', (response) => {
      answered = true;
      resolve(response);
    });
    req.once('error', (error: NodeJS.ErrnoException) => {
      if (!retried && closedWhileIdle(error, req.reusedSocket && !answered, signal)) resolve(exchange(url, agent, headers, body, signal, true));
      else reject(error);
    });
    req.end(payload);
  });
}
