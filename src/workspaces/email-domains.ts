import { disposableEmailBlocklist } from 'disposable-email-domains-js';
import { domainOf, normalDomain } from '../common/email-address';

/** Lines a workspace's "Blocked email domains" may hold. */
export const MAX_BLOCKED_DOMAINS = 1000;

/**
 * The "Blocked email domains" field, one domain a line: each in the normal form of an address's
 * domain (IDNA ASCII, lower-case: `Spam.TEST` and `ｓｐａｍ.test` are `spam.test`), a leading `@`
 * or `*.` taken off, blank lines and repeats left out. A line that is no domain refuses the whole
 * field, naming the line.
 */
export function parseBlockedDomains(text: string): { domains: string[] } | { error: string } {
  const domains: string[] = [];
  const lines = text.split(/\r\n|\r|\n/);
  for (const [index, line] of lines.entries()) {
    const typed = line.trim();
    if (typed === '') continue;
    const domain = normalDomain(typed.replace(/^(@|\*\.)/, ''));
    if (domain === null) return { error: `line ${index + 1} ("${typed.slice(0, 100)}") is not a domain, such as spam.example` };
    if (!domains.includes(domain)) domains.push(domain);
  }
  if (domains.length > MAX_BLOCKED_DOMAINS) return { error: `at most ${MAX_BLOCKED_DOMAINS} domains` };
  return { domains };
}

/**
 * Whether an address (in its normal form) is at one of these domains or under one: blocking
 * `spam.test` blocks `x.spam.test` too (a mail host under a blocked domain is the same sender),
 * never `notspam.test`.
 */
export function atBlockedDomain(normal: string, blocked: readonly string[]): boolean {
  if (blocked.length === 0) return false;
  const domain = domainOf(normal);
  return blocked.some((b) => domain === b || domain.endsWith(`.${b}`));
}

let disposable: Set<string> | undefined;

/**
 * Whether an address (in its normal form) is at a disposable-mail domain, or under one, by the
 * list of the `disposable-email-domains-js` package (the community blocklist, updated with the
 * package). The list (some 9,000 domains) is read into a Set once, at the first look-up (tens of
 * milliseconds, once per process; the worker and the CLI never pay it); a look-up is then one Set
 * probe per label of the domain, under a microsecond.
 */
export function atDisposableDomain(normal: string): boolean {
  // The list's domains are ASCII and lower-case already (the unit test checks each against normalDomain).
  disposable ??= new Set(disposableEmailBlocklist().map((d) => d.trim().toLowerCase()));
  let domain = domainOf(normal);
  for (;;) {
    if (disposable.has(domain)) return true;
    const dot = domain.indexOf('.');
    if (dot < 0) return false;
    domain = domain.slice(dot + 1);
  }
}
