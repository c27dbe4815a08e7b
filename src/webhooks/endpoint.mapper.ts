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

/**
 * The endpoint as the API shows it: Slack and Discord URLs masked, and the secret only when
 * given (the answers to create and rotate).
 */
export function toEndpointResponse(endpoint: WebhookEndpointEntity, secret?: string | null): EndpointResponse {
  return {
    id: endpoint.id,
    kind: endpoint.kind,
    url: endpoint.urlShown,
    events: endpoint.events,
    enabled: endpoint.enabled,
    disabled_reason: endpoint.disabledReason,
    consecutive_failures: endpoint.consecutiveFailures,
    created_at: endpoint.createdAt.toISOString(),
    ...(secret !== undefined ? { secret: secret ?? undefined } : {}),
  };
}
