import * as dns from 'node:dns';
import * as http from 'node:http';
import * as https from 'node:https';
import * as net from 'node:net';
import ipaddr from 'ipaddr.js';
import { AppError } from '../common/app-error';

/**
 * Own-server deliveries may reach only public unicast addresses (decisions.md, "Deliveries to
 * an own server"): checked when the endpoint is saved (`checkTargetUrl`) and again on every
 * connection (`safeAgents`), after DNS resolution. `WEBHOOK_ALLOW_PRIVATE_TARGETS=true` lifts
 * both checks for development and tests.
 *
 * Verified on Node 20:
 * - WHATWG `new URL()` turns decimal, octal, hex and short IPv4 literals (`2130706433`,
 *   `0177.0.0.1`, `0x7f.1`, `127.1`, percent-encoded or full-width digits) into dotted
 *   `127.0.0.1`, and IPv6 literals into their compressed form in brackets (`[::ffff:7f00:1]`);
 *   it rejects zone ids (`[fe80::1%25eth0]`) and host names whose last label is numeric.
 * - `net.connect` does NOT call `lookup` when the host is already an IP literal: it connects
 *   straight away. The agents below therefore check literal hosts themselves before connecting,
 *   and hand every other host to `safeLookup`.
 */

/** Global unicast space (2000::/3): every routable IPv6 address lies in it. */
const IPV6_GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');

const RANGE_WORDS: Record<string, string> = {
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link-local',
  loopback: 'loopback',
  carrierGradeNat: 'carrier-grade NAT',
  private: 'private',
  reserved: 'reserved',
  as112: 'AS112',
  as112v6: 'AS112',
  amt: 'AMT',
  uniqueLocal: 'unique-local',
  ipv4Mapped: 'IPv4-mapped',
  deprecatedSiteLocal: 'site-local',
  discard: 'discard-only',
  rfc6145: 'IPv4-translated',
  rfc6052: 'NAT64',
  '6to4': '6to4',
  teredo: 'Teredo',
  benchmarking: 'benchmarking',
  deprecatedOrchid: 'ORCHID',
  orchid2: 'ORCHID',
  droneRemoteIdProtocolEntityTags: 'reserved',
  segmentRouting: 'segment-routing',
};

/** Strips the brackets of an IPv6 host as written in a URL (`[::1]` → `::1`). */
function unbracket(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/**
 * Why an address is not public unicast (`loopback`, `private`, `NAT64`…), or `null` when it is.
 * Only canonical IP literals as `net.isIP` accepts them are considered (no decimal/octal forms,
 * no zone ids); anything else is refused as `not an IP address`.
 */
export function addressProblem(address: string): string | null {
  if (typeof address !== 'string' || address.includes('%') || net.isIP(address) === 0) {
    return 'not an IP address';
  }
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return 'not an IP address';
  }
  const range = parsed.range();
  if (range !== 'unicast') return RANGE_WORDS[range] ?? range;
  if (parsed.kind() === 'ipv6' && !parsed.match(IPV6_GLOBAL_UNICAST)) {
    // e.g. IPv4-compatible ::7f00:1, which ipaddr.js calls "unicast".
    return 'not global unicast';
  }
  return null;
}

/** True only for a canonical IP address in public unicast space. */
export function isPublicUnicast(address: string): boolean {
  return addressProblem(address) === null;
}

/** A connection was refused because its target is not a public unicast address. */
export class UnsafeTargetError extends Error {
  readonly code = 'ERR_UNSAFE_TARGET';

  constructor(
    readonly host: string,
    readonly address: string,
    readonly reason: string,
  ) {
    super(
      host === address
        ? `Refused to connect to ${address}: ${reason} address, not public unicast`
        : `Refused to connect to ${host} (${address}): ${reason} address, not public unicast`,
    );
    this.name = 'UnsafeTargetError';
  }
}

function lookupAll(host: string, family: number, timeoutMs: number): Promise<dns.LookupAddress[]> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('lookup timed out')), timeoutMs);
    dns.lookup(host, { all: true, verbatim: true, family }, (err, addresses) => {
      clearTimeout(timer);
      if (err) reject(err);
      else resolve(addresses);
    });
  });
}

export interface CheckTargetOptions {
  /** `WEBHOOK_ALLOW_PRIVATE_TARGETS`: allow loopback/private targets and plain http. */
  allowPrivate: boolean;
  /** Defaults to `!allowPrivate`. */
  requireHttps?: boolean;
  /** Upper bound for the DNS lookup at save time; default 5 s. */
  lookupTimeoutMs?: number;
}

/**
 * Checks an own-server URL when the endpoint is saved. Throws `AppError.invalid('url', …)`
 * (400 invalid_request) with the problem. Host names are resolved: every address must be public
 * unicast. With `allowPrivate` only the URL shape is checked (no DNS).
 */
export async function checkTargetUrl(raw: string, options: CheckTargetOptions): Promise<void> {
  const requireHttps = options.requireHttps ?? !options.allowPrivate;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw AppError.invalid('url', 'must be a valid URL');
  }
  if (url.protocol !== 'https:' && (requireHttps || url.protocol !== 'http:')) {
    throw AppError.invalid('url', requireHttps ? 'must use https' : 'must use http or https');
  }
  if (!url.hostname) throw AppError.invalid('url', 'must be a valid URL');
  if (url.username || url.password) {
    throw AppError.invalid('url', 'must not contain credentials');
  }
  if (options.allowPrivate) return;

  const host = unbracket(url.hostname);
  if (net.isIP(host)) {
    const problem = addressProblem(host);
    if (problem) {
      throw AppError.invalid('url', `must be a public address (${host} is ${problem})`);
    }
    return;
  }

  let addresses: dns.LookupAddress[];
  try {
    addresses = await lookupAll(host, 0, options.lookupTimeoutMs ?? 5_000);
  } catch {
    throw AppError.invalid('url', `does not resolve (${host})`);
  }
  if (addresses.length === 0) throw AppError.invalid('url', `does not resolve (${host})`);
  for (const { address } of addresses) {
    const problem = addressProblem(address);
    if (problem) {
      throw AppError.invalid(
        'url',
        `must resolve to public addresses only (${host} resolves to ${address}, which is ${problem})`,
      );
    }
  }
}

type LookupOptions = dns.LookupOptions;
type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | dns.LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for sockets and agents: resolves with `dns.lookup` and refuses the connection
 * (UnsafeTargetError) when any resolved address is not public unicast, unless `allowPrivate`.
 * Answers in the shape asked for (`options.all` → array, otherwise one address and family).
 */
export function safeLookup(allowPrivate: boolean): net.LookupFunction {
  const lookup = (hostname: string, options: LookupOptions, callback: LookupCallback) => {
    const wantAll = options?.all === true;
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, wantAll ? [] : '', undefined);
      if (!allowPrivate) {
        for (const { address } of addresses) {
          const problem = addressProblem(address);
          if (problem) {
            return callback(
              new UnsafeTargetError(hostname, address, problem),
              wantAll ? [] : '',
              undefined,
            );
          }
        }
      }
      if (wantAll) return callback(null, addresses);
      const first = addresses[0];
      if (!first) {
        const notFound: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
        notFound.code = 'ENOTFOUND';
        return callback(notFound, '', undefined);
      }
      return callback(null, first.address, first.family);
    });
  };
  return lookup as unknown as net.LookupFunction;
}

type CreateConnection = (
  options: http.ClientRequestArgs,
  callback?: (err: Error | null, socket: net.Socket) => void,
) => net.Socket | undefined;

/**
 * Wraps an agent's `createConnection`: IP-literal hosts (which Node connects to without any
 * lookup) are checked here, Unix sockets are refused, and every other host goes through
 * `safeLookup`.
 */
function guardAgent<A extends http.Agent>(agent: A, allowPrivate: boolean): A {
  const lookup = safeLookup(allowPrivate);
  const original = (agent as unknown as { createConnection: CreateConnection }).createConnection;
  const guarded: CreateConnection = function (this: A, options, callback) {
    const refuse = (error: Error) => {
      // The agent's callback is the only error path that reaches the request as 'error'.
      process.nextTick(() => callback?.(error, undefined as unknown as net.Socket));
      return undefined;
    };
    if (!allowPrivate) {
      if (options.socketPath) {
        return refuse(new UnsafeTargetError(options.socketPath, options.socketPath, 'Unix socket'));
      }
      const host = unbracket(options.host || 'localhost');
      if (net.isIP(host)) {
        const problem = addressProblem(host);
        if (problem) return refuse(new UnsafeTargetError(host, host, problem));
      }
    }
    return original.call(this, { ...options, lookup } as http.ClientRequestArgs, callback);
  };
  (agent as unknown as { createConnection: CreateConnection }).createConnection = guarded;
  return agent;
}

/**
 * Agents for one delivery attempt (axios `httpAgent` / `httpsAgent`): no keep-alive, every
 * connection checked after DNS resolution. Use with axios `proxy: false` so the check applies to
 * the target rather than to a proxy.
 */
export function safeAgents(allowPrivate: boolean): { httpAgent: http.Agent; httpsAgent: https.Agent } {
  const lookup = safeLookup(allowPrivate);
  return {
    httpAgent: guardAgent(new http.Agent({ keepAlive: false, lookup }), allowPrivate),
    httpsAgent: guardAgent(new https.Agent({ keepAlive: false, lookup }), allowPrivate),
  };
}
