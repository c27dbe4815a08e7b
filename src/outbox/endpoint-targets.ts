import { Injectable, Logger } from '@nestjs/common';
import { SecretBox } from '../common/secret-box';
import type { EndpointKind, RotatedSecret } from './webhook-endpoint.entity';
import type { EndpointTarget } from './channel';

/** Where each sealed value lives: a value copied to another row or column does not open. */
export const urlContext = (id: string) => `webhook_endpoints.url:${id}`;
export const secretContext = (id: string) => `webhook_endpoints.secret:${id}`;

/** An endpoint as stored, sealed: what the outbox reads of it to send to it. */
export interface SealedTarget {
  id: string;
  kind: EndpointKind;
  url_sealed: string;
  enabled: boolean;
  secret_sealed: string | null;
  rotated_secrets: RotatedSecret[];
}

/** Opens endpoints as the outbox sends to them: URL and every valid signing secret unsealed. */
@Injectable()
export class EndpointTargets {
  private readonly logger = new Logger('Endpoints');

  constructor(private readonly box: SecretBox) {}

  /**
   * The secrets an own-server endpoint signs with now, unsealed: its current secret first, then
   * every rotated-out one still within its 24 hours, newest first (one `v1=` each in
   * `Chorus-Signature`). None for Slack and Discord. Throws when one does not open with this
   * ENCRYPTION_KEY.
   */
  signingSecrets(endpoint: { id: string; secretSealed: string | null; rotatedSecrets: RotatedSecret[] }, now: Date = new Date()): string[] {
    const sealed = [
      endpoint.secretSealed,
      ...endpoint.rotatedSecrets.filter((rotated) => new Date(rotated.expires_at) > now).map((rotated) => rotated.sealed),
    ];
    return sealed.filter((s): s is string => !!s).map((s) => this.box.open(s, secretContext(endpoint.id)));
  }

  /**
   * An endpoint unsealed. One whose URL or secret does not open with this ENCRYPTION_KEY
   * (restored under another key, say) is `unreadable` and logged, without stopping the others.
   */
  open(row: SealedTarget, now: Date = new Date()): EndpointTarget {
    const target: EndpointTarget = { id: row.id, kind: row.kind, url: '', secrets: [], enabled: row.enabled, unreadable: false };
    try {
      target.secrets = this.signingSecrets({ id: row.id, secretSealed: row.secret_sealed, rotatedSecrets: row.rotated_secrets }, now);
      target.url = this.box.open(row.url_sealed, urlContext(row.id));
    } catch {
      this.logger.error(`Endpoint ${row.id}: its URL or signing secret does not open with this ENCRYPTION_KEY.`);
      target.unreadable = true;
    }
    return target;
  }
}
