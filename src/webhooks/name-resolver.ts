import { Resolver } from 'node:dns/promises';
import * as net from 'node:net';
import type { OnApplicationShutdown } from '@nestjs/common';
import { FairSlots } from '../common/fair-slots';
import { APP_CONFIG, AppConfig } from '../config/app-config';

/** Lookups in flight in this process, and for any one workspace. */
export const MAX_LOOKUPS = 64;
export const MAX_LOOKUPS_PER_WORKSPACE = 8;

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/**
 * A name that gave no address. `ENOTFOUND`: the name or its addresses do not exist.
 * `ETIMEOUT`: no answer within DNS_TIMEOUT_MS (time spent waiting for a lookup slot included).
 * `EAI_AGAIN`: the server failed or refused.
 */
export class LookupError extends Error {
  constructor(
    readonly host: string,
    readonly code: 'ENOTFOUND' | 'ETIMEOUT' | 'EAI_AGAIN',
    detail: string,
  ) {
    super(`Lookup of ${host} failed: ${detail}`);
    this.name = 'LookupError';
  }
}

export interface NameResolverOptions {
  /** `ip` or `ip:port` entries; unset: the system's name servers (/etc/resolv.conf). */
  servers?: string[];
  timeoutMs: number;
  maxLookups?: number;
  maxLookupsPerWorkspace?: number;
}

const isLocalhost = (host: string) => {
  const name = host.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
};

const LOOPBACK: ResolvedAddress[] = [
  { address: '127.0.0.1', family: 4 },
  { address: '::1', family: 6 },
];

/**
 * Name resolution for webhook targets, at save and at every connection. It asks DNS servers
 * directly (c-ares, `resolve4`/`resolve6`) instead of `dns.lookup`: getaddrinfo runs on
 * libuv's four threads, which file access and crypto share, so four hanging names would stall
 * the whole process. Each lookup ends within `timeoutMs`, and lookups in flight are capped per
 * workspace, so one workspace's slow names cannot hold every slot.
 *
 * /etc/hosts is not read (c-ares queries servers only); `localhost` and `*.localhost` are
 * loopback (RFC 6761), IP literals are answered as they are.
 */
export class NameResolver implements OnApplicationShutdown {
  private readonly resolver: Resolver;
  private readonly slots: FairSlots;
  readonly timeoutMs: number;

  constructor(options: NameResolverOptions) {
    this.timeoutMs = options.timeoutMs;
    // One try per server, no longer than our own deadline: c-ares then gives up when we do.
    this.resolver = new Resolver({ timeout: options.timeoutMs, tries: 1 });
    if (options.servers?.length) this.resolver.setServers(options.servers);
    this.slots = new FairSlots(options.maxLookups ?? MAX_LOOKUPS, options.maxLookupsPerWorkspace ?? MAX_LOOKUPS_PER_WORKSPACE);
  }

  /** Lookups in flight now, for one workspace or for all. */
  inFlight(workspaceId?: string): number {
    return this.slots.used(workspaceId);
  }

  /** Lookups waiting for a slot now, for one workspace or for all. */
  waiting(workspaceId?: string): number {
    return this.slots.waiting(workspaceId);
  }

  /**
   * Every address of `host` (IPv4 first), for the given family (0: both), as the lookup of
   * `workspaceId`. Rejects with a LookupError when there is none.
   */
  async resolve(host: string, workspaceId: string, family: 0 | 4 | 6 = 0): Promise<ResolvedAddress[]> {
    const literal = net.isIP(host);
    const local = literal ? [{ address: host, family: literal as 4 | 6 }] : isLocalhost(host) ? LOOPBACK : null;
    if (local) {
      const matching = local.filter((a) => family === 0 || a.family === family);
      if (matching.length === 0) throw new LookupError(host, 'ENOTFOUND', `no IPv${family} address`);
      return matching;
    }
    const endsAt = Date.now() + this.timeoutMs;
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(this.timedOut(host)), this.timeoutMs);
    try {
      const release = await this.slots.acquire(workspaceId, deadline.signal);
      try {
        // A slot freed by another lookup's deadline can come in the same instant as ours.
        if (Date.now() >= endsAt) throw this.timedOut(host);
        return await this.query(host, family, deadline.signal);
      } finally {
        release();
      }
    } finally {
      clearTimeout(timer);
    }
  }

  private timedOut(host: string): LookupError {
    return new LookupError(host, 'ETIMEOUT', `no answer within ${this.timeoutMs} ms`);
  }

  /** A (and AAAA) at once; at the deadline, whatever family has answered is enough. */
  private query(host: string, family: 0 | 4 | 6, deadline: AbortSignal): Promise<ResolvedAddress[]> {
    const families: (4 | 6)[] = family === 0 ? [4, 6] : [family];
    const answers = new Map<4 | 6, ResolvedAddress[]>();
    const errors: NodeJS.ErrnoException[] = [];
    return new Promise((resolve, reject) => {
      let pending = families.length;
      let settled = false;
      const settle = () => {
        if (settled) return;
        settled = true;
        deadline.removeEventListener('abort', settle);
        const found = families.flatMap((f) => answers.get(f) ?? []);
        if (found.length > 0) return resolve(found);
        if (deadline.aborted) return reject(deadline.reason);
        // c-ares gives up at our deadline too (one try of timeoutMs): whichever timer fires first,
        // no answer in time is ETIMEOUT, not a server's failure.
        if (errors.length > 0 && errors.every((e) => e.code === 'ETIMEOUT')) return reject(this.timedOut(host));
        const missing = errors.every((e) => e.code === 'ENOTFOUND' || e.code === 'ENODATA');
        reject(new LookupError(host, missing ? 'ENOTFOUND' : 'EAI_AGAIN', errors.map((e) => e.code).join(', ') || 'no address'));
      };
      deadline.addEventListener('abort', settle, { once: true });
      for (const f of families) {
        (f === 4 ? this.resolver.resolve4(host) : this.resolver.resolve6(host))
          .then(
            (addresses) => answers.set(f, addresses.map((address) => ({ address, family: f }))),
            (error: NodeJS.ErrnoException) => errors.push(error),
          )
          .finally(() => {
            pending -= 1;
            if (pending === 0) settle();
          });
      }
    });
  }

  /** Ends the queries still waiting for an answer (at shutdown: they would hold the process open). */
  close(): void {
    this.resolver.cancel();
  }

  onApplicationShutdown(): void {
    this.close();
  }
}

/** The process's one resolver: the API (endpoint checks) and the outbox (connections) share its slots. */
export const nameResolverProvider = {
  provide: NameResolver,
  useFactory: (config: AppConfig) => new NameResolver({ servers: config.dnsServers, timeoutMs: config.dnsTimeoutMs }),
  inject: [APP_CONFIG],
};
