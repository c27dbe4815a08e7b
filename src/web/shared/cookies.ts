import { parse } from 'cookie';
import type { Request, Response } from 'express';

/** A cookie of ours: its name and the rules it is set with. */
export interface CookieSpec {
  name: string;
  path: string;
  secure: boolean;
  maxAgeMs: number;
  /**
   * A cookie of a page shown in another site's frame (the widget's embed): `SameSite=None`, so
   * that the frame sends it, `Partitioned` (CHIPS), so that browsers that block third-party
   * cookies keep it, in a jar of that top-level site only, and always `Secure` (browsers take
   * that over http on localhost and 127.0.0.1 too).
   */
  framed?: boolean;
}

/**
 * A cookie on a site served over https gets `Secure`, and the `__Host-` name when its path is
 * `/` (no Domain, so it can be neither set nor read by another host), else `__Secure-`.
 */
export function cookieSpec(base: string, options: { path: string; secure: boolean; maxAgeMs: number; framed?: boolean }): CookieSpec {
  const prefix = !options.secure ? '' : options.path === '/' ? '__Host-' : '__Secure-';
  return { name: `${prefix}${base}`, ...options };
}

export function readCookie(req: Request, spec: CookieSpec): string | undefined {
  const header = req.headers.cookie;
  if (!header || !header.includes(spec.name)) return undefined;
  return parse(header)[spec.name];
}

/** HttpOnly always: no script reads it. SameSite=Lax (no other site's form sends it), but a framed one's (cookieSpec). */
const rules = (spec: CookieSpec) =>
  spec.framed
    ? { path: spec.path, secure: true, httpOnly: true, sameSite: 'none' as const, partitioned: true }
    : { path: spec.path, secure: spec.secure, httpOnly: true, sameSite: 'lax' as const };

export function setCookie(res: Response, spec: CookieSpec, value: string, maxAgeMs = spec.maxAgeMs): void {
  res.cookie(spec.name, value, { ...rules(spec), maxAge: maxAgeMs, encode: String });
}

export function clearCookie(res: Response, spec: CookieSpec): void {
  res.clearCookie(spec.name, rules(spec));
}
