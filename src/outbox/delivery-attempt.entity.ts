/** A row of `delivery_attempts`, as its store reads it. */
export interface DeliveryAttemptEntity {
  workspaceId: string;
  id: string;
  deliveryId: string;
  at: Date;
  durationMs: number;
  statusCode: number | null;

  /** The class of failure when there was no HTTP answer: timeout, connection_refused, … */
  error: string | null;

  /** The first 2 KiB of the answer's body. */
  responseBody: string | null;
}
