import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { Channel, ClaimedDelivery, OutboxChannels, Outcome } from '../outbox/channel';
import { SecretBox } from '../common/secret-box';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import type { PostStatusChangedData } from './chat-messages';
import { MailMessage, Mailer } from './mailer';
import { SIGN_IN_EMAIL, sealedBodyContext } from './sign-in-email';
import { unsubscribeUrl } from './unsubscribe-token';
import { voterEmail } from './voter-email';

/**
 * A voter's email, a changelog entry's, or a sign-in code's (whose body is sealed: it holds the
 * code), through SMTP_URL (or an .eml file). Success is the server's 250.
 */
@Injectable()
export class EmailChannel implements Channel, OnModuleInit {
  readonly kind = 'email';

  constructor(
    private readonly mailer: Mailer,
    private readonly box: SecretBox,
    private readonly channels: OutboxChannels,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.channels.register(this);
  }

  async send(delivery: ClaimedDelivery): Promise<Outcome> {
    const started = performance.now();
    const took = () => Math.round(performance.now() - started);
    try {
      await this.mailer.send(this.message(delivery), delivery.workspace_id);
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

  /**
   * The message: a sign-in code's opened, a changelog entry's as queued, and a voter's (its row's
   * body empty) rendered now from the status change as the event recorded it (not the post as it
   * is now: the email says what changed then), with the unsubscribe link of its recipient.
   */
  private message(delivery: ClaimedDelivery): MailMessage {
    if (delivery.event_type === SIGN_IN_EMAIL) return JSON.parse(this.box.open(delivery.body, sealedBodyContext(delivery.id))) as MailMessage;
    if (delivery.body !== '') return JSON.parse(delivery.body) as MailMessage;
    if (delivery.event_type !== 'post.status_changed' || delivery.event_data === null || delivery.recipient === null) {
      throw new Error(`Email ${delivery.id} (${delivery.event_type}) has no body and no status change to render it from`);
    }
    const to = delivery.recipient;
    const data = JSON.parse(delivery.event_data) as PostStatusChangedData;
    return voterEmail(data, to, unsubscribeUrl(this.config.baseUrl, this.box, { workspaceId: delivery.workspace_id, email: to }));
  }
}
