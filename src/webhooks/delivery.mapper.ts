import type { DeliveryReason, DeliveryStatus } from './webhook-delivery.entity';

export interface DeliveryRow {
  id: string;
  event_type: string;
  status: DeliveryStatus;
  reason: DeliveryReason | null;
  created_at: Date;
  next_attempt_at: Date | null;
  attempts: { at: string; duration_ms: number; status_code: number | null; error: string | null }[];
}

/** A delivery and its attempts, oldest attempt first. */
export const DELIVERY_SELECT = `
  SELECT d.id, d.event_type, d.status, d.reason, d.created_at, d.next_attempt_at,
         COALESCE((SELECT json_agg(json_build_object(
                     'at', to_char(a.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                     'duration_ms', a.duration_ms, 'status_code', a.status_code, 'error', a.error)
                   ORDER BY a.at, a.id)
                     FROM delivery_attempts a
                    WHERE a.workspace_id = d.workspace_id AND a.delivery_id = d.id), '[]') AS attempts
    FROM webhook_deliveries d`;

export function toDeliveryResponse(row: DeliveryRow) {
  return {
    id: row.id,
    event_type: row.event_type,
    status: row.status,
    reason: row.reason,
    created_at: row.created_at.toISOString(),
    next_attempt_at: row.status === 'pending' && row.next_attempt_at ? row.next_attempt_at.toISOString() : null,
    attempts: row.attempts,
  };
}
