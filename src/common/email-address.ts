import { domainToASCII } from 'node:url';

/**
 * An email address in the one form Chorus compares, stores and sends to: the domain in its
 * ASCII (IDNA, punycode) form, lower-case; the local part with its ASCII letters lower-cased
 * and nothing else changed. No Unicode case folding or normalisation touches the local part:
 * `K` (U+212A, the Kelvin sign) is not `k`, `İ` is not `i`, `ß` is not `ss`, so an address that
 * reaches another mailbox is never taken for this one. The domain is mapped as IDNA maps it
 * (UTS 46, what a mail server does before it looks the domain up): `ｅｘａｍｐｌｅ.com` is
 * `example.com`, and `vendİr.com` is `xn--vendir-tyd.com`, another domain. What the person is
 * found by is what the email goes to, so whoever can read one can read the other.
 *
 * Answers null for what has no such form: no `@`, an empty, over-long or unprintable local
 * part, a domain IDNA refuses or that is not a host name (letters, digits and inner dashes,
 * labels of 1 to 63 characters). Pure: the API, the CLI, SSO, both sign-ins, unsubscribing and
 * the migration that brought existing rows to this form all call it.
 */
export function normalEmail(address: string): string | null {
  const trimmed = address.replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, '');
  const at = trimmed.lastIndexOf('@');
  if (at <= 0) return null;
  const local = trimmed.slice(0, at);
  const domain = trimmed.slice(at + 1);
  if (Buffer.byteLength(local, 'utf8') > MAX_LOCAL_BYTES || UNPRINTABLE.test(local) || local.includes('@')) return null;
  const ascii = domainToASCII(domain);
  if (!isHostName(ascii)) return null;
  const normal = `${lowerAscii(local)}@${ascii}`;
  return normal.length > MAX_ADDRESS_LENGTH ? null : normal;
}

/**
 * A domain in the form normalEmail gives an address's domain (IDNA ASCII, lower-case), so that a
 * domain typed as `Spam.TEST` or `ｓｐａｍ.test` matches the addresses at it; null for what is
 * no host name.
 */
export function normalDomain(domain: string): string | null {
  const ascii = domainToASCII(domain.replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, ''));
  return isHostName(ascii) ? ascii : null;
}

/** The domain of an address in its normal form (everything after its last `@`). */
export const domainOf = (normal: string): string => normal.slice(normal.lastIndexOf('@') + 1);

/** Whether an address has a normal form (normalEmail). */
export const isEmailAddress = (address: unknown): address is string => typeof address === 'string' && normalEmail(address) !== null;

/** RFC 5321's limits: 64 octets of local part, 254 characters of address (a path of 256 less its brackets). */
const MAX_LOCAL_BYTES = 64;
const MAX_ADDRESS_LENGTH = 254;
/** White space, controls, and the format characters that reorder or hide text (bidi overrides, zero widths). */
const UNPRINTABLE = /[\s\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** A-Z to a-z, and nothing else: the one case change that never makes two mailboxes one. */
export const lowerAscii = (text: string): string => text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());

function isHostName(domain: string): boolean {
  if (domain === '' || domain.length > 253) return false;
  const labels = domain.split('.');
  // A top-level label of digits alone makes an IP address, not a domain.
  return labels.every((label) => LABEL.test(label)) && !/^\d+$/.test(labels[labels.length - 1]);
}
