/** Characters that have no place in a path we send a browser to. */
const UNSAFE_IN_PATH = /[\u0000-\u001f\u007f\\]/;

/**
 * Where to send a browser back to: `wanted` if it is a path under `home` (a page of this
 * workspace's site, or of the dashboard), else `home`. Another site (`https://…`), a
 * protocol-relative `//host` or `/\host`, and a path that leaves `home` once normalised
 * (`/ws/../admin`) all go home.
 */
export function pathUnder(home: string, wanted: unknown): string {
  if (typeof wanted !== 'string' || !wanted.startsWith('/') || wanted.startsWith('//') || UNSAFE_IN_PATH.test(wanted)) return home;
  let url: URL;
  try {
    url = new URL(wanted, 'http://chorus.invalid');
  } catch {
    return home;
  }
  if (url.origin !== 'http://chorus.invalid' || (url.pathname !== home && !url.pathname.startsWith(`${home}/`))) return home;
  return `${url.pathname}${url.search}${url.hash}`;
}
