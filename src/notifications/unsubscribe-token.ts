import { timingSafeEqual } from 'node:crypto';
import { normalEmail } from '../common/email-address';
import type { SecretBox } from '../common/secret-box';

const CONTEXT = 'voter-email-unsubscribe';

export interface Unsubscriber {
  workspaceId: string;
  email: string;
}

// Links made before addresses had a normal form carry JavaScript's lower-case of the address:
// the MAC covers the address as carried, and the reader brings it to its normal form.
const macOf = (box: SecretBox, workspaceId: string, address: string) => box.mac(`${workspaceId}\n${address}`, CONTEXT);

/**
 * `<workspace id>.<address, base64url>.<HMAC, base64url>`: names whom to stop emailing (the
 * address in its normal form), and cannot be forged.
 */
export function unsubscribeToken(box: SecretBox, { workspaceId, email }: Unsubscriber): string {
  const normal = normalEmail(email) ?? email;
  const address = Buffer.from(normal, 'utf8').toString('base64url');
  return `${workspaceId}.${address}.${macOf(box, workspaceId, normal).toString('base64url')}`;
}

/** The unsubscribe link of voter and changelog email to `email` in the workspace, under BASE_URL. */
export const unsubscribeUrl = (baseUrl: string, box: SecretBox, who: Unsubscriber) =>
  `${baseUrl}/email/unsubscribe/${unsubscribeToken(box, who)}`;

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
