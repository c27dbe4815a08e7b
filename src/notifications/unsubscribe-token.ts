import { timingSafeEqual } from 'node:crypto';
import type { SecretBox } from '../common/secret-box';

const CONTEXT = 'voter-email-unsubscribe';

export interface Unsubscriber {
  workspaceId: string;
  email: string;
}

const macOf = (box: SecretBox, workspaceId: string, email: string) =>
  box.mac(`${workspaceId}\n${email.toLowerCase()}`, CONTEXT);

/** `<workspace id>.<address, base64url>.<HMAC, base64url>`: names whom to stop emailing, and cannot be forged. */
export function unsubscribeToken(box: SecretBox, { workspaceId, email }: Unsubscriber): string {
  const address = Buffer.from(email.toLowerCase(), 'utf8').toString('base64url');
  return `${workspaceId}.${address}.${macOf(box, workspaceId, email).toString('base64url')}`;
}

/** Whom a token names, or null when it was not made by us (or was altered). */
export function readUnsubscribeToken(box: SecretBox, token: string): Unsubscriber | null {
  const [workspaceId, address, mac, ...rest] = token.split('.');
  if (rest.length > 0 || !workspaceId || !address || !mac) return null;
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(workspaceId)) return null;
  const email = Buffer.from(address, 'base64url').toString('utf8');
  const given = Buffer.from(mac, 'base64url');
  const expected = macOf(box, workspaceId, email);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  return { workspaceId, email };
}
