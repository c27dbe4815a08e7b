/** What stands in a logged address for a credential. */
const REDACTED = '[redacted]';

/** Query parameter names (decoded, lower-cased) that carry a credential, as a part of the name. */
const SECRET_NAME_PARTS = ['token', 'secret', 'passw', 'apikey', 'api_key', 'access_key', 'private_key', 'signature', 'session', 'jwt', 'credential', 'auth'];
/** ... and as the whole name. */
const SECRET_NAMES = new Set(['key', 'code', 'sig', 'otp', 'pin', 'pwd', 'k', 'sso']);
/** Values that are credentials whatever they are called: Chorus's keys and secrets, and JWTs. */
const SECRET_VALUE = /chorus_key_[A-Za-z0-9]{6,}|whsec_[A-Za-z0-9+/=_-]{6,}|sso_[A-Za-z0-9]{12,}|eyJ[\w-]{2,}\.[\w-]{2,}\./i;
/** Path segments after these two are credentials: one-time sign-in links, unsubscribe links. */
const SECRET_AFTER = [
  ['sign-in', 'link'],
  ['email', 'unsubscribe'],
];

/** Percent-decoding until nothing changes (at most three times), as forgiving as a log must be. */
function decoded(text: string): string {
  let current = text;
  for (let i = 0; i < 3 && current.includes('%'); i++) {
    try {
      const next = decodeURIComponent(current);
      if (next === current) break;
      current = next;
    } catch {
      break;
    }
  }
  return current;
}

const isSecretName = (name: string) => SECRET_NAMES.has(name) || SECRET_NAME_PARTS.some((part) => name.includes(part));

/** A decoded path segment as a logged path writes it: the characters a path may hold as they are, the rest percent-encoded. */
const encodedSegment = (segment: string) =>
  Array.from(segment, (c) => (/^[A-Za-z0-9\-._~!$&'()*+,;=:@]$/.test(c) ? c : encodeURIComponent(c))).join('');

function loggedPath(path: string): string {
  // Judged decoded and case-folded, as the router may read it (`/admin/SIGN-IN/LINK/…`, `%6Cink`).
  const segments = decoded(path).split('/');
  const folded = segments.map((segment) => segment.toLowerCase());
  const secret = segments.map(
    (segment, i) => SECRET_AFTER.some(([a, b]) => folded[i - 2] === a && folded[i - 1] === b) || SECRET_VALUE.test(segment),
  );
  // A path with nothing to hide is logged as it came (so its segments need no encoding: most requests).
  if (!secret.includes(true)) return path;
  return segments.map((segment, i) => (secret[i] ? REDACTED : encodedSegment(segment))).join('/');
}

function loggedQuery(query: string): string {
  return query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const rawName = eq === -1 ? pair : pair.slice(0, eq);
      const name = decoded(rawName.replace(/\+/g, ' ')).toLowerCase().replace(/\[.*$/, '').trim();
      const value = eq === -1 ? '' : decoded(pair.slice(eq + 1).replace(/\+/g, ' '));
      if (SECRET_VALUE.test(name)) return REDACTED;
      return isSecretName(name) || SECRET_VALUE.test(value) ? `${rawName}=${REDACTED}` : pair;
    })
    .join('&');
}

/**
 * A request's address as a log line shows it, without the credentials an address can carry,
 * however it spells them: the token of a one-time sign-in or unsubscribe link in the path, and
 * in the query every parameter whose name says it holds a credential (`token`, `key`,
 * `api_key`, `code`, `secret`, …) and every value that is one (`chorus_key_…`, `whsec_…`,
 * `sso_…`, a JWT). Names, paths and values are judged percent-decoded and in any letter case
 * (`%74oken=`, `TOKEN=`, `/admin/SIGN-IN/LINK/…`); what is kept is logged as it came.
 */
export function loggedUrl(url: string): string {
  if (harmless.has(url)) return url;
  const logged = redacted(url);
  // Only an address with nothing to hide is remembered: a credential is never kept.
  if (logged === url && url.length <= RECENT_URL_LENGTH) {
    if (harmless.size >= RECENT_URLS) harmless.delete(harmless.values().next().value!);
    harmless.add(url);
  }
  return logged;
}

/**
 * The last 1,000 distinct addresses of up to 512 characters found to hold no credential, logged
 * as they came: the answer depends on the address alone, and a busy API sees the same few again
 * and again (a list, polled), where judging one took microseconds of every request's log line.
 */
const harmless = new Set<string>();
const RECENT_URLS = 1_000;
const RECENT_URL_LENGTH = 512;

function redacted(url: string): string {
  const mark = url.indexOf('?');
  if (mark === -1) return loggedPath(url);
  return `${loggedPath(url.slice(0, mark))}?${loggedQuery(url.slice(mark + 1))}`;
}
