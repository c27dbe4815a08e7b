import type * as http from 'node:http';
import type { Readable } from 'node:stream';
import { HttpService } from '@nestjs/axios';
import { Inject, Injectable } from '@nestjs/common';
import { firstValueFrom } from 'rxjs';
import { APP_CONFIG, AppConfig } from '../../src/config/app-config';
import { NameResolver } from '../../src/webhooks/name-resolver';
import { type Answer, closedWhileIdle, WebhookSender } from '../../src/webhooks/webhook-sender';

/**
 * The design card's sender: today's WebhookSender (the same URL rules, the same lookups and
 * address checks, the same pinned keep-alive agents, the same 2 KiB cap and whole-exchange
 * timeout) with the POST itself made by `HttpService` from `@nestjs/axios`. What axios is told:
 * - `httpAgent`/`httpsAgent`: the attempt's pinned agent, so it connects only to checked addresses;
 * - `proxy: false`: no proxy from the environment;
 * - `maxRedirects: 0`: node's own http/https transport, a 3xx is an answer like any other;
 * - `validateStatus: () => true`: every status is recorded, none thrown;
 * - `decompress: true`: gzip, x-gzip, compress, x-compress, deflate (raw too) and br;
 * - `responseType: 'stream'`, `maxContentLength: -1`: the sender reads the first 2 KiB and the rest
 *   to the end, as today (axios's own limit fails a long answer instead of cutting it);
 * - `transformRequest`/`transformResponse: []`: the signed bytes are sent as they are (axios would
 *   parse a JSON string and trim it) and the answer is not parsed;
 * - `signal`: the sender's 10 s for the whole exchange, lookup and body included (axios's
 *   `timeout` would not count the lookup, nor a streamed body).
 * A kept connection that the receiver closed while idle fails before any answer; that request is
 * sent once more on a new connection, as today.
 */
@Injectable()
export class AxiosWebhookSender extends WebhookSender {
  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    resolver: NameResolver,
    private readonly http: HttpService,
  ) {
    super(config, resolver);
  }

  protected override async exchange(
    url: URL,
    agent: http.Agent,
    headers: Record<string, string>,
    body: string,
    signal: AbortSignal,
    retried = false,
  ): Promise<Answer> {
    // Nothing of axios is imported here: @nestjs/axios loads axios's ES module build, whose
    // classes are not those of its CommonJS build (an `instanceof AxiosError` would fail).
    let response;
    try {
      response = await firstValueFrom(
        this.http.post<Readable>(url.href, body, {
          headers: { Accept: 'application/json, text/plain, */*', ...headers },
          httpAgent: agent,
          httpsAgent: agent,
          proxy: false,
          maxRedirects: 0,
          validateStatus: () => true,
          decompress: true,
          responseType: 'stream',
          maxContentLength: -1,
          transformRequest: [],
          transformResponse: [],
          signal,
        }),
      );
    } catch (error) {
      const { request, response } = error as { request?: http.ClientRequest; response?: unknown };
      const reusedBeforeAnswer = request?.reusedSocket === true && response === undefined;
      if (!retried && closedWhileIdle(error as { code?: string }, reusedBeforeAnswer, signal)) {
        return this.exchange(url, agent, headers, body, signal, true);
      }
      throw error;
    }
    return { statusCode: response.status, retryAfter: response.headers['retry-after'], body: response.data };
  }
}
