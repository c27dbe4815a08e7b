import type { Readable } from 'node:stream';
import { HttpService } from '@nestjs/axios';
import { Inject, Injectable } from '@nestjs/common';
import { AxiosError } from 'axios';
import { firstValueFrom } from 'rxjs';
import { VERSION } from '../common/version';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { attemptRefusal, safeAgents } from './address-guard';
import { NameResolver } from './name-resolver';
import type { EndpointKind } from './webhook-endpoint.entity';
import type { AttemptError } from './attempt-errors';

export const RESPONSE_BODY_LIMIT = 2048;
export const USER_AGENT = `Chorus-Webhooks/${VERSION}`;

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

function errorClass(error: unknown): AttemptError {
  const code = (error as AxiosError).code ?? (error as NodeJS.ErrnoException).code ?? '';
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

/**
 * POSTs a delivery: never follows redirects, sends only to URLs that today's rules allow (the
 * scheme and the Slack/Discord hosts, checked at every attempt), connects only to addresses the
 * address guard allows (resolved by the shared NameResolver as the target's workspace, checked
 * after DNS), and gives up after WEBHOOK_TIMEOUT_MS for the whole exchange, body included.
 */
@Injectable()
export class WebhookSender {
  constructor(
    private readonly http: HttpService,
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
      const response = await firstValueFrom(
        this.http.post<Readable>(target.url, body, {
          headers,
          ...safeAgents({ allowPrivate, resolver: this.resolver, workspaceId: target.workspaceId }),
          proxy: false,
          maxRedirects: 0,
          responseType: 'stream',
          decompress: true,
          validateStatus: () => true,
          transformRequest: [(data: string) => data],
          signal: abort.signal,
        }),
      );
      const responseBody = await readStart(response.data, RESPONSE_BODY_LIMIT);
      return {
        statusCode: response.status,
        error: null,
        durationMs: elapsed(),
        responseBody,
        retryAfterMs: response.status === 429 ? retryAfter(response.headers['retry-after'], responseBody) : null,
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
}
