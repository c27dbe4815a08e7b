import type { DisabledReason, EndpointKind, WebhookEndpointEntity } from './webhook-endpoint.entity';

export interface EndpointResponse {
  id: string;
  kind: EndpointKind;
  url: string;
  events: string[];
  enabled: boolean;
  disabled_reason: DisabledReason | null;
  consecutive_failures: number;
  created_at: string;
  secret?: string;
}

/** The endpoint as the API shows it; the secret only when `withSecret` (create and rotate). */
export function toEndpointResponse(endpoint: WebhookEndpointEntity, withSecret = false): EndpointResponse {
  return {
    id: endpoint.id,
    kind: endpoint.kind,
    url: endpoint.url,
    events: endpoint.events,
    enabled: endpoint.enabled,
    disabled_reason: endpoint.disabledReason,
    consecutive_failures: endpoint.consecutiveFailures,
    created_at: endpoint.createdAt.toISOString(),
    ...(withSecret ? { secret: endpoint.secret ?? undefined } : {}),
  };
}
