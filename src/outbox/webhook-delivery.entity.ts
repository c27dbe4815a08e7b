export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'cancelled';
export type DeliveryReason = 'quota_exceeded' | 'endpoint_disabled' | 'retries_exhausted' | 'unsubscribed' | 'expired';
