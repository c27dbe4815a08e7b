import { parse } from 'cookie';
import type { Request, Response } from 'express';

/** A cookie of ours: its name and the rules it is set with. */
export interface CookieSpec {
  name: string;
  path: string;
  secure: boolean;
  maxAgeMs: number;
}

/**
 * A cookie on a site served over https gets `Secure`, and the `__Host-` name when its path is
 * `/` (no Domain, so it can be neither set nor read by another host), else `__Secure-`.
 */
export function cookieSpec(base: string, options: { path: string; secure: boolean; maxAgeMs: number }): CookieSpec {
  const prefix = !options.secure ? '' : options.path === '/' ? '__Host-' : '__Secure-';
  return { name: `${prefix}${base}`, ...options };
}

export function readCookie(req: Request, spec: CookieSpec): string | undefined {
  const header = req.headers.cookie;
  if (!header || !header.includes(spec.name)) return undefined;
  return parse(header)[spec.name];
}

/** HttpOnly and SameSite=Lax always: no script reads it, and no other site's form sends it. */
export function setCookie(res: Response, spec: CookieSpec, value: string, maxAgeMs = spec.maxAgeMs): void {
  res.cookie(spec.name, value, { path: spec.path, secure: spec.secure, httpOnly: true, sameSite: 'lax', maxAge: maxAgeMs, encode: String });
}

export function clearCookie(res: Response, spec: CookieSpec): void {
  res.clearCookie(spec.name, { path: spec.path, secure: spec.secure, httpOnly: true, sameSite: 'lax' });
}
