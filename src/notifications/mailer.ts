import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Inject, Injectable } from '@nestjs/common';
import nodemailer, { Transporter } from 'nodemailer';
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
 * Sends mail through SMTP_URL (nodemailer), or, without it, writes each message as an .eml
 * file under DATA_DIR/mail, where a developer can open it.
 */
@Injectable()
export class Mailer {
  private readonly transport: Transporter;
  private readonly folder: string | null;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    if (config.smtpUrl) {
      // Bounded like a webhook attempt, well inside the processor's lease.
      const timeout = config.webhookTimeoutMs;
      this.transport = nodemailer.createTransport(
        { url: config.smtpUrl, connectionTimeout: timeout, greetingTimeout: timeout, socketTimeout: timeout },
        { from: MAIL_FROM },
      );
      this.folder = null;
    } else {
      this.transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
      this.folder = join(config.dataDir, 'mail');
    }
  }

  /** Resolves once the SMTP server accepted the message (or the file is written); throws otherwise. */
  async send(message: MailMessage): Promise<void> {
    const info = await this.transport.sendMail({ from: MAIL_FROM, ...message });
    if (this.folder) {
      await mkdir(this.folder, { recursive: true });
      const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomUUID().slice(0, 8)}.eml`;
      await writeFile(join(this.folder, name), (info as unknown as { message: Buffer }).message);
    }
  }

  close(): void {
    this.transport.close();
  }
}
