import * as dns from 'node:dns';
import * as http from 'node:http';
import * as https from 'node:https';
import * as net from 'node:net';
import { Logger } from '@nestjs/common';
import ipaddr from 'ipaddr.js';
import { AppError } from '../common/app-error';
import { isDiscordWebhookUrl, isSlackWebhookUrl } from '../notifications/chat-messages';
import { LookupError, NameResolver, ResolvedAddress } from './name-resolver';
import type { EndpointKind } from '../outbox/webhook-endpoint.entity';

const logger = new Logger('AddressGuard');

/**
 * Own-server deliveries may reach only public unicast addresses (decisions.md, "Deliveries to
 * an own server"): checked when the endpoint is saved (`checkTargetUrl`) and again on every
 * attempt (`resolveTarget`, after DNS resolution through the NameResolver) and at every new
 * connection (`pinnedAgent`).
 * `WEBHOOK_ALLOW_PRIVATE_TARGETS=true` lifts both checks for development and tests; the URL's
 * scheme and chat host are checked again at every attempt (`attemptRefusal`), so endpoints saved
 * with the switch on stop when it is turned off.
 *
 * Verified on Node 20:
 * - WHATWG `new URL()` turns decimal, octal, hex and short IPv4 literals (`2130706433`,
 *   `0177.0.0.1`, `0x7f.1`, `127.1`, percent-encoded or full-width digits) into dotted
 *   `127.0.0.1`, and IPv6 literals into their compressed form in brackets (`[::ffff:7f00:1]`);
 *   it rejects zone ids (`[fe80::1%25eth0]`) and host names whose last label is numeric.
 * - `net.connect` does NOT call `lookup` when the host is already an IP literal: it connects
 *   straight away. The agents below therefore check literal hosts themselves before connecting,
 *   and hand every other host to a lookup that answers only the addresses checked.
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

/** The rules for one workspace's target, at save or at an attempt. */
export interface TargetGuard {
  /** `WEBHOOK_ALLOW_PRIVATE_TARGETS`: allow http, loopback and private targets, and any chat host. */
  allowPrivate: boolean;
  resolver: NameResolver;
  /** Whose lookups these are: workspaces share the resolver's slots. */
  workspaceId: string;
}

/**
 * What today's rules say against a URL's shape, before any address: the Slack and Discord
 * hosts, the scheme (https, or http too with `allowPrivate`), no credentials. Null when none.
 */
export function urlProblem(kind: EndpointKind, raw: string, allowPrivate: boolean): string | null {
  if (!allowPrivate && kind === 'slack' && !isSlackWebhookUrl(raw)) {
    return 'must be a Slack incoming webhook URL (https://hooks.slack.com/services/…)';
  }
  if (!allowPrivate && kind === 'discord' && !isDiscordWebhookUrl(raw)) {
    return 'must be a Discord webhook URL (https://discord.com/api/webhooks/…)';
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be a valid URL';
  }
  if (url.protocol !== 'https:' && (!allowPrivate || url.protocol !== 'http:')) {
    return allowPrivate ? 'must use http or https' : 'must use https';
  }
  if (!url.hostname) return 'must be a valid URL';
  if (url.username || url.password) return 'must not contain credentials';
  return null;
}

/**
 * Checks a target URL when the endpoint is saved. Throws `AppError.invalid('url', …)` (400
 * invalid_request) with the problem. Host names are resolved: every address must be public
 * unicast. With `allowPrivate` only the URL's shape is checked (no DNS).
 *
 * The message never names a resolved address: "postgres resolves to 172.18.0.2" would map the
 * operator's network for anyone with a key. The server's log has the detail.
 */
export async function checkTargetUrl(kind: EndpointKind, raw: string, options: TargetGuard): Promise<void> {
  const problem = urlProblem(kind, raw, options.allowPrivate);
  if (problem) throw AppError.invalid('url', problem);
  if (options.allowPrivate) return;

  const host = unbracket(new URL(raw).hostname);
  if (net.isIP(host)) {
    const range = addressProblem(host);
    if (range) throw AppError.invalid('url', `must be a public address (${host} is ${range})`);
    return;
  }

  let addresses: ResolvedAddress[];
  try {
    addresses = await options.resolver.resolve(host, options.workspaceId);
  } catch (error) {
    if ((error as LookupError).code === 'ETIMEOUT') {
      throw AppError.invalid('url', `${host} did not resolve within ${options.resolver.timeoutMs} ms; try again later`);
    }
    throw AppError.invalid('url', `does not resolve (${host})`);
  }
  for (const { address } of addresses) {
    const range = addressProblem(address);
    if (range) {
      logger.warn(
        `Workspace ${options.workspaceId}: endpoint URL refused, ${host} resolves to ${address}, which is ${range}`,
      );
      throw AppError.invalid('url', `must resolve to public addresses only (${host} does not)`);
    }
  }
}

/**
 * The rules of saving, applied again at each attempt to an endpoint saved earlier, perhaps
 * under `WEBHOOK_ALLOW_PRIVATE_TARGETS`: the attempt's error class (`unsafe_target`) when today's
 * configuration refuses the URL's scheme or chat host, or null. The address itself is checked
 * before connecting (`resolveTarget`) and at each new connection (`pinnedAgent`).
 */
export function attemptRefusal(kind: EndpointKind, url: string, allowPrivate: boolean): 'unsafe_target' | null {
  return urlProblem(kind, url, allowPrivate) === null ? null : 'unsafe_target';
}

type LookupOptions = dns.LookupOptions;
type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | dns.LookupAddress[],
  family?: number,
) => void;

type CreateConnection = (
  options: http.ClientRequestArgs,
  callback?: (err: Error | null, socket: net.Socket) => void,
) => net.Socket | undefined;

/**
 * Wraps an agent's `createConnection`: IP-literal hosts (which Node connects to without any
 * lookup) are checked here, Unix sockets are refused, and every other host goes through
 * `lookup`.
 */
function guardAgent<A extends http.Agent>(agent: A, guard: Pick<TargetGuard, 'allowPrivate'>, lookup: net.LookupFunction): A {
  const original = (agent as unknown as { createConnection: CreateConnection }).createConnection;
  const guarded: CreateConnection = function (this: A, options, callback) {
    const refuse = (error: Error) => {
      // The agent's callback is the only error path that reaches the request as 'error'.
      process.nextTick(() => callback?.(error, undefined as unknown as net.Socket));
      return undefined;
    };
    if (!guard.allowPrivate) {
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
 * Every address of a target's host as this attempt resolves it (through the NameResolver, as the
 * guard's workspace; an IP literal as it is), each checked: rejects with an UnsafeTargetError
 * when any is not public unicast (unless `allowPrivate`), or with the resolver's LookupError.
 */
export async function resolveTarget(host: string, guard: TargetGuard): Promise<ResolvedAddress[]> {
  const name = unbracket(host);
  const addresses = await guard.resolver.resolve(name, guard.workspaceId);
  if (!guard.allowPrivate) {
    for (const { address } of addresses) {
      const problem = addressProblem(address);
      if (problem) throw new UnsafeTargetError(name, address, problem);
    }
  }
  return addresses;
}

/**
 * A `lookup` that answers only `addresses` (those an attempt resolved and checked) for `host`,
 * checking them again: a pinned agent's connections go to those addresses and nowhere else.
 */
function pinnedLookup(host: string, addresses: ResolvedAddress[], allowPrivate: boolean): net.LookupFunction {
  const lookup = (hostname: string, options: LookupOptions, callback: LookupCallback) => {
    const wantAll = options?.all === true;
    const family = options?.family === 4 || options?.family === 6 ? options.family : 0;
    const answer = addresses.filter((a) => family === 0 || a.family === family);
    const refuse = (error: NodeJS.ErrnoException) => process.nextTick(() => callback(error, wantAll ? [] : '', undefined));
    if (unbracket(hostname) !== host || answer.length === 0) {
      return refuse(Object.assign(new Error(`${hostname} is not the host this connection was pinned to`), { code: 'ENOTFOUND' }));
    }
    if (!allowPrivate) {
      for (const { address } of answer) {
        const problem = addressProblem(address);
        if (problem) return refuse(new UnsafeTargetError(hostname, address, problem));
      }
    }
    process.nextTick(() => (wantAll ? callback(null, answer) : callback(null, answer[0].address, answer[0].family)));
  };
  return lookup as unknown as net.LookupFunction;
}

/**
 * A keep-alive agent bound to one host and the addresses that an attempt resolved and checked
 * (`resolveTarget`): it connects only to those addresses, and checks them, an IP literal host and
 * a Unix socket again at every new connection. Kept per scheme, host, port and addresses (see
 * WebhookSender), a socket it keeps open is reused only by attempts that resolved the very same
 * addresses and passed the same check: keep-alive saves the connection, never the check.
 */
export function pinnedAgent(
  protocol: 'http:' | 'https:',
  host: string,
  addresses: ResolvedAddress[],
  allowPrivate: boolean,
  options: { idleMs: number; maxFreeSockets: number },
): http.Agent {
  const name = unbracket(host);
  const lookup = pinnedLookup(name, addresses, allowPrivate);
  const agentOptions: http.AgentOptions = {
    keepAlive: true,
    // The most recently used socket first: sockets left over from a burst go idle and close.
    scheduling: 'lifo',
    timeout: options.idleMs,
    maxFreeSockets: options.maxFreeSockets,
    lookup,
  } as http.AgentOptions;
  const agent = protocol === 'https:' ? new https.Agent(agentOptions) : new http.Agent(agentOptions);
  return guardAgent(agent, { allowPrivate }, lookup);
}
