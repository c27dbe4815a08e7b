/**
 * An outbox worker (as dist/src/worker.js) whose sends go through the sender BENCH_SENDER names:
 * `node` (today's WebhookSender) or `axios` (AxiosWebhookSender, the same sender over
 * `HttpService`). Both are built the same way, through Nest's testing module; `axios` replaces
 * the WebhookSender provider through the injector, so every channel gets it.
 */
import { HttpService } from '@nestjs/axios';
import { Test } from '@nestjs/testing';
import { APP_CONFIG, AppConfig } from '../../src/config/app-config';
import { exitOnStartupError } from '../../src/startup';
import { NameResolver } from '../../src/webhooks/name-resolver';
import { WebhookSender } from '../../src/webhooks/webhook-sender';
import { runWorker } from '../../src/worker';
import { AxiosWebhookSender } from './axios-sender';

const SENDER = process.env.BENCH_SENDER ?? 'node';
if (SENDER !== 'node' && SENDER !== 'axios') exitOnStartupError(new Error(`BENCH_SENDER must be node or axios, not ${SENDER}`));

runWorker(async (module, logger) => {
  const builder = Test.createTestingModule({ imports: [module] }).setLogger(logger);
  if (SENDER === 'axios') {
    builder.overrideProvider(WebhookSender).useFactory({
      factory: (config: AppConfig, resolver: NameResolver) => new AxiosWebhookSender(config, resolver, new HttpService()),
      inject: [APP_CONFIG, NameResolver],
    });
  }
  const context = await builder.compile();
  await context.init();
  return context;
}).catch(exitOnStartupError);
