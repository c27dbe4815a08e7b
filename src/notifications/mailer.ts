import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import nodemailer, { Transporter } from 'nodemailer';
import { FairSlots } from '../common/fair-slots';
import { APP_CONFIG, AppConfig } from '../config/app-config';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  /** e.g. List-Unsubscribe and List-Unsubscribe-Post (RFC 8058). */
  headers?: Record<string, string>;
}

export const MAIL_FROM = 'Chorus <notifications@chorus.invalid>';

/**
 * SMTP connections this process keeps open to SMTP_URL's server, shared by every workspace's
 * mail (SMTP_URL's `?maxConnections=` sets another number). Each is used for many messages
 * instead of one connection, greeting and QUIT per message.
 */
export const SMTP_CONNECTIONS = 8;
/** Messages one connection carries before it is closed and another opened (`?maxMessages=`). */
export const SMTP_MESSAGES_PER_CONNECTION = 100;

/**
 * Sends mail through SMTP_URL (nodemailer's pooled SMTP transport), or, without it, writes each
 * message as an .eml file under DATA_DIR/mail, where a developer can open it.
 *
 * The pool's connections are shared by workspaces in turns (FairSlots): a message waits for a
 * connection in its workspace's queue, and when one frees, the workspaces that wait take it in
 * turn, so a workspace with many messages ready never keeps a connection from one that waits
 * (how many each workspace has in flight at all is the outbox's share, EMAIL_CONCURRENCY).
 */
@Injectable()
export class Mailer implements OnApplicationShutdown {
  private readonly transport: Transporter;
  private readonly folder: string | null;
  /** One per pooled connection; null when writing files. */
  private readonly connections: FairSlots | null;
  private readonly timeoutMs: number;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    // Bounded like a webhook attempt: the wait for a connection, then the send, each within
    // WEBHOOK_TIMEOUT_MS, so that both together stay inside the processor's lease.
    this.timeoutMs = config.webhookTimeoutMs;
    if (config.smtpUrl) {
      const timeout = config.webhookTimeoutMs;
      this.transport = nodemailer.createTransport(
        {
          url: config.smtpUrl,
          pool: true,
          maxConnections: SMTP_CONNECTIONS,
          maxMessages: SMTP_MESSAGES_PER_CONNECTION,
          connectionTimeout: timeout,
          greetingTimeout: timeout,
          socketTimeout: timeout,
        },
        { from: MAIL_FROM },
      );
      // What the pool was given in the end: SMTP_URL's query may set it.
      const size = (this.transport.transporter as { options?: { maxConnections?: number } }).options?.maxConnections;
      const total = Number.isInteger(size) && size! >= 1 ? size! : SMTP_CONNECTIONS;
      this.connections = new FairSlots(total, total);
      this.folder = null;
    } else {
      this.transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
      this.connections = null;
      this.folder = join(config.dataDir, 'mail');
    }
  }

  /**
   * Resolves once the SMTP server accepted the message (or the file is written); throws
   * otherwise, and when no connection came free, or the send did not end, within the timeout.
   * `workspaceId`: whose turn the message waits in.
   */
  async send(message: MailMessage, workspaceId: string): Promise<void> {
    if (!this.connections) {
      const info = await this.transport.sendMail({ from: MAIL_FROM, ...message });
      await mkdir(this.folder!, { recursive: true });
      const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomUUID().slice(0, 8)}.eml`;
      await writeFile(join(this.folder!, name), (info as unknown as { message: Buffer }).message);
      return;
    }
    const release = await this.within((signal) => this.connections!.acquire(workspaceId, signal)).catch((error: Error) => {
      throw error.name === 'TimeoutError' ? new Error(`no SMTP connection came free within ${this.timeoutMs} ms`) : error;
    });
    try {
      // Our own Message-ID, in nodemailer's form (its own costs five calls for random bytes).
      await this.within((signal) => this.transport.sendMail({ from: MAIL_FROM, messageId: `<${randomUUID()}@chorus.invalid>`, ...message, signal }));
    } finally {
      release();
    }
  }

  /**
   * `work` with a signal that aborts after the timeout, whose timer is cleared when it ends (an
   * `AbortSignal.timeout` per message would fire for every message sent, long after it went).
   */
  private async within<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new DOMException('The operation timed out.', 'TimeoutError')), this.timeoutMs);
    try {
      return await work(controller.signal);
    } finally {
      clearTimeout(timer);
    }
  }

  /** After every module's beforeApplicationShutdown: the outbox's sends in flight have ended. */
  onApplicationShutdown(): void {
    this.close();
  }

  close(): void {
    this.transport.close();
  }
}
