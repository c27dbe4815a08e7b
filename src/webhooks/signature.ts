import { createHmac } from 'node:crypto';
import { SECRET_PREFIX } from './endpoints.service';

/**
 * `t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">`, one `v1` per secret that is still
 * valid (two during a rotation). The HMAC key is the whole secret, `whsec_` included: the
 * scheme of Stripe's webhooks, so Stripe's verification code accepts our deliveries.
 */
export function signatureHeader(body: string, secrets: string[], now: Date = new Date()): string {
  const t = Math.floor(now.getTime() / 1000);
  const signatures = secrets.map((secret) => `v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`);
  return [`t=${t}`, ...signatures].join(',');
}

const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * The HMAC key of a secret under the Standard Webhooks spec: the part after `whsec_`,
 * base64-decoded. Ours are 40 base62 characters, which are also exactly ten whole base64
 * quanta (30 bytes), so strict decoders such as the `standardwebhooks` package's read them as
 * Node does. Anything else a strict decoder would refuse or read differently: null, not guessed.
 */
export function standardWebhooksKey(secret: string): Buffer | null {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  return encoded.length > 0 && STRICT_BASE64.test(encoded) ? Buffer.from(encoded, 'base64') : null;
}

/**
 * Every signing header of one attempt: ours (`Chorus-Signature`, which Stripe's
 * `constructEvent` verifies) and the Standard Webhooks trio (`webhook-id`, `webhook-timestamp`,
 * and `webhook-signature`: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, one per valid
 * secret, space-separated), which the `standardwebhooks` package and Svix's libraries verify.
 * Both sign the same bytes at the same moment.
 */
export function signingHeaders(deliveryId: string, body: string, secrets: string[], at: Date = new Date()): Record<string, string> {
  const timestamp = Math.floor(at.getTime() / 1000);
  const headers: Record<string, string> = { 'Chorus-Signature': signatureHeader(body, secrets, at) };
  const keys = secrets.map(standardWebhooksKey).filter((key): key is Buffer => key !== null);
  if (keys.length > 0) {
    const signed = `${deliveryId}.${timestamp}.${body}`;
    headers['webhook-id'] = deliveryId;
    headers['webhook-timestamp'] = String(timestamp);
    headers['webhook-signature'] = keys.map((key) => `v1,${createHmac('sha256', key).update(signed).digest('base64')}`).join(' ');
  }
  return headers;
}
