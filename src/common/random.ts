import { randomBytes } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `length` uniformly random base62 characters (rejection sampling, no modulo bias). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

const POOL_BYTES = 12 * 1024;
let pool = Buffer.alloc(0);
let used = 0;

/**
 * `bytes` random bytes as base64url, taken from a pool filled 12 KiB at a time: one call into
 * the random source per thousand request ids instead of one per request.
 */
export function pooledRandomId(bytes: number): string {
  if (used + bytes > pool.length) {
    pool = randomBytes(POOL_BYTES);
    used = 0;
  }
  used += bytes;
  return pool.toString('base64url', used - bytes, used);
}
