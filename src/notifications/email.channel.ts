import { Injectable, OnModuleInit } from '@nestjs/common';
import { Channel, ClaimedDelivery, OutboxChannels, Outcome } from '../outbox/channel';
import { SecretBox } from '../common/secret-box';
import { MailMessage, Mailer } from './mailer';
import { SIGN_IN_EMAIL, sealedBodyContext } from './sign-in-email';

/**
 * A voter's email, or a sign-in code's (whose body is sealed: it holds the code), through
 * SMTP_URL (or an .eml file). Success is the server's 250.
 */
@Injectable()
export class EmailChannel implements Channel, OnModuleInit {
  readonly kind = 'email';

  constructor(
    private readonly mailer: Mailer,
    private readonly box: SecretBox,
    private readonly channels: OutboxChannels,
  ) {}

  onModuleInit(): void {
    this.channels.register(this);
  }

  async send(delivery: ClaimedDelivery): Promise<Outcome> {
    const started = performance.now();
    const took = () => Math.round(performance.now() - started);
    try {
      const body = delivery.event_type === SIGN_IN_EMAIL ? this.box.open(delivery.body, sealedBodyContext(delivery.id)) : delivery.body;
      await this.mailer.send(JSON.parse(body) as MailMessage, delivery.workspace_id);
      return { ok: true, statusCode: 250, error: null, durationMs: took(), responseBody: null, retryAfterMs: null };
    } catch (error) {
      const code = (error as { responseCode?: number }).responseCode;
      return {
        ok: false,
        statusCode: code ?? null,
        error: code ? null : 'smtp_error',
        // Stored in a text column: PostgreSQL takes no NUL characters.
        responseBody: (error as Error).message.slice(0, 2048).replaceAll('\u0000', ''),
        durationMs: took(),
        retryAfterMs: null,
      };
    }
  }
}
