import { Injectable } from '@nestjs/common';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { Database } from '../database/sql';

/** Everything Chorus reports to Prometheus, on a registry of its own. */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();

  readonly httpDuration = new Histogram({
    name: 'chorus_http_request_duration_seconds',
    help: 'HTTP requests by method, route and status, and how long they took.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  readonly deliveryAttempts = new Counter({
    name: 'chorus_delivery_attempts_total',
    help: 'Delivery attempts by kind (webhook, slack, discord, email) and outcome (success, failure).',
    labelNames: ['kind', 'outcome'] as const,
    registers: [this.registry],
  });

  readonly deliveryLatency = new Histogram({
    name: 'chorus_delivery_latency_seconds',
    help: 'From the commit of the change to the successful delivery, by kind.',
    labelNames: ['kind'] as const,
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 3600],
    registers: [this.registry],
  });

  constructor(db: Database) {
    collectDefaultMetrics({ register: this.registry, prefix: 'chorus_process_' });
    // Read from the database when scraped, so every instance reports the same, shared backlog.
    new Gauge({
      name: 'chorus_outbox_backlog',
      help: 'Deliveries pending (due or waiting for a retry), and events not yet fanned out.',
      labelNames: ['what'] as const,
      registers: [this.registry],
      async collect() {
        const [row] = await db.rows<{ deliveries: number; events: number }>(
          `SELECT (SELECT count(*) FROM webhook_deliveries WHERE status = 'pending')::int AS deliveries,
                  (SELECT count(*) FROM outbox_events WHERE dispatched_at IS NULL)::int AS events`,
        );
        this.set({ what: 'deliveries' }, row.deliveries);
        this.set({ what: 'events' }, row.events);
      },
    });
    new Gauge({
      name: 'chorus_outbox_oldest_due_seconds',
      help: 'Age of the oldest delivery that is due and not being sent (0 when none).',
      registers: [this.registry],
      async collect() {
        this.set((await oldestDue(db)).seconds);
      },
    });
  }

  /** `Content-Type` and body of the scrape answer. */
  async scrape(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

/**
 * Seconds since the oldest due, unclaimed delivery became due (not counting Slack and Discord
 * channels that are told to wait), and whether any processor is sending right now.
 */
export async function oldestDue(db: Database): Promise<{ seconds: number; sending: boolean }> {
  const [row] = await db.rows<{ age: number | null; sending: boolean }>(
    `SELECT extract(epoch FROM now() - min(d.next_attempt_at))::float AS age,
            EXISTS (SELECT 1 FROM webhook_deliveries WHERE status = 'pending' AND locked_until > now()) AS sending
       FROM webhook_deliveries d
       LEFT JOIN webhook_endpoints e ON e.workspace_id = d.workspace_id AND e.id = d.endpoint_id
      WHERE d.status = 'pending' AND d.next_attempt_at <= now()
        AND (d.locked_until IS NULL OR d.locked_until < now())
        AND (e.next_send_at IS NULL OR e.kind = 'webhook' OR e.next_send_at <= now())`,
  );
  return { seconds: Math.max(0, row.age ?? 0), sending: row.sending };
}
