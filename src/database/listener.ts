import { Logger } from '@nestjs/common';
import { Client } from 'pg';

/**
 * A connection of its own that LISTENs on channels and keeps doing so: after an error or a
 * closed connection it reconnects every second. A cache that trusts what it holds only while it
 * hears every change asks `listening`; `onStart` runs each time listening (re)starts, when
 * whatever changed meanwhile is unknown.
 */
export class Listener {
  private readonly logger: Logger;
  private client: Client | null = null;
  private stopped = false;
  listening = false;

  constructor(
    private readonly url: string,
    private readonly channels: string[],
    private readonly handlers: {
      notification(channel: string, payload: string): void;
      onStart(): void;
      /** What a lapse costs, for the warning: "every request looks its key up", say. */
      whileDown: string;
    },
    name: string,
  ) {
    this.logger = new Logger(name);
  }

  start(): void {
    void this.connect();
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const client = new Client({ connectionString: this.url });
    let failed = false;
    const retry = (why: string) => {
      if (failed) return;
      failed = true;
      this.listening = false;
      this.handlers.onStart();
      if (this.client === client) this.client = null;
      void client.end().catch(() => {});
      if (this.stopped) return;
      this.logger.warn(`Not listening for changes (${why}): ${this.handlers.whileDown} until it is back.`);
      setTimeout(() => void this.connect(), 1_000).unref();
    };
    client.on('notification', (message) => this.handlers.notification(message.channel, message.payload ?? ''));
    client.on('error', (error) => retry(error.message));
    client.on('end', () => this.client === client && retry('connection closed'));
    try {
      await client.connect();
      for (const channel of this.channels) await client.query(`LISTEN ${channel}`);
      if (this.stopped) return void client.end().catch(() => {});
      this.client = client;
      this.handlers.onStart(); // whatever changed while nobody listened
      this.listening = true;
    } catch (error) {
      retry((error as Error).message);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.listening = false;
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => {});
  }
}

/**
 * LISTEN, as the engine allows: on a PostgreSQL server (or Citus's coordinator) a connection of
 * its own per listener; on the embedded database, where a NOTIFY reaches no other connection,
 * a listener that never listens, so that whoever trusts a cache only while it hears every
 * change keeps none, and whoever waits to be woken polls instead.
 */
export class Notifications {
  constructor(
    private readonly url: string,
    /** Whether a NOTIFY committed by one connection reaches the others. */
    readonly heard: boolean,
  ) {}

  listen(channels: string[], handlers: ConstructorParameters<typeof Listener>[2], name: string): Listener | null {
    if (!this.heard) return null;
    const listener = new Listener(this.url, channels, handlers, name);
    listener.start();
    return listener;
  }
}
