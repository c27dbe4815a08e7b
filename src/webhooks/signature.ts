import { createHmac } from 'node:crypto';

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
