export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'cancelled';
export type DeliveryReason = 'quota_exceeded' | 'endpoint_disabled' | 'retries_exhausted' | 'unsubscribed' | 'expired';

/**
 * One event for one endpoint, or one voter's email about it. `body` is serialised once; every
 * attempt sends these bytes.
 *
 * A row of `webhook_deliveries`, as its store reads it.
 */
export interface WebhookDeliveryEntity {
  workspaceId: string;

  /** Also the `Chorus-Delivery` header and the body's `id`. */
  id: string;
  endpointId: string | null;

  /** The email address of a voter email; null for endpoint deliveries. */
  recipient: string | null;
  eventId: string;
  eventType: string;
  eventCreatedAt: Date;
  body: string;
  status: DeliveryStatus;
  reason: DeliveryReason | null;
  attemptCount: number;
  nextAttemptAt: Date | null;
  lockedBy: string | null;
  lockedUntil: Date | null;
  createdAt: Date;
  deliveredAt: Date | null;
}
