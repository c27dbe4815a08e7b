import { Resolver } from 'node:dns';
import { resolve } from 'node:path';
import { Transform, plainToInstance } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  Min,
  validateSync,
} from 'class-validator';

const toBoolean = ({ value }: { value: unknown }) =>
  value === 'true' ? true : value === 'false' ? false : value;
const toInteger = ({ value }: { value: unknown }) =>
  typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;

const DURATION = /^(\d+)(ms|s|m|h)$/;
const DURATION_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 } as const;

/** Parses `1m,5m,30m,2h,8h` into milliseconds. */
export function parseSchedule(text: string): number[] {
  return text.split(',').map((part) => {
    const match = DURATION.exec(part.trim());
    if (!match) throw new Error(`not a duration: "${part}"`);
    return Number(match[1]) * DURATION_MS[match[2] as keyof typeof DURATION_MS];
  });
}

/** The environment as read and checked once at start. Names are part of the product. */
export class EnvironmentVariables {
  @IsOptional()
  @Transform(toInteger)
  @IsInt({ message: 'must be a port number' })
  @Min(0, { message: 'must be a port number' })
  @Max(65535, { message: 'must be a port number' })
  PORT: number = 3000;

  @IsOptional()
  @Matches(/^postgres(ql)?:\/\//, { message: 'must be a postgres:// connection string' })
  DATABASE_URL?: string;

  @IsOptional()
  @Transform(toInteger)
  @IsInt({ message: 'must be a whole number of milliseconds (0: no limit)' })
  @Min(0, { message: 'must be a whole number of milliseconds (0: no limit)' })
  DATABASE_STATEMENT_TIMEOUT_MS: number = 5_000;

  @IsOptional()
  @Transform(toInteger)
  @IsInt({ message: 'must be a whole number from 0 to 400 (0: V8\'s own)' })
  @Min(0, { message: 'must be a whole number from 0 to 400 (0: V8\'s own)' })
  @Max(400, { message: 'must be a whole number from 0 to 400 (0: V8\'s own)' })
  HEAP_GROWING_PERCENT: number = 30;

  @IsOptional()
  @IsString()
  DATA_DIR: string = './.data';

  /** Checked by parseRedisUrl: one URL, or several naming the nodes of a Redis Cluster. */
  @IsOptional()
  @IsString()
  REDIS_URL?: string;

  @IsOptional()
  @Matches(/^https?:\/\/[^/\s]+(\/[^\s]*)?$/, { message: 'must be an http(s) URL' })
  BASE_URL?: string;

  @IsOptional()
  @Matches(/^https?:\/\/[^/\s]+(\/[^\s]*)?$/, { message: 'must be an http(s) URL' })
  PUBLIC_BASE_URL?: string;

  @IsOptional()
  @Transform(toInteger)
  @IsInt({ message: 'must be a whole number of milliseconds' })
  @Min(10, { message: 'must be at least 10 milliseconds' })
  RATE_LIMIT_WINDOW_MS: number = 60_000;

  @IsOptional()
  @Transform(toInteger)
  @IsInt({ message: 'must be a whole number' })
  @Min(1, { message: 'must be at least 1' })
  AUTH_FAILURE_LIMIT: number = 20;

  @IsOptional()
  @IsString()
  TRUST_PROXY: string = 'false';

  @IsOptional()
  @Transform(toInteger)
  @IsInt({ message: 'must be a whole number' })
  @Min(1, { message: 'must be at least 1' })
  SIGN_IN_CLIENT_LIMIT: number = 20;

  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean({ message: 'must be true or false' })
  RUN_WORKER: boolean = true;

  @IsOptional()
  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
    message: 'must be one of fatal, error, warn, info, debug, trace, silent',
  })
  LOG_LEVEL: string = 'info';

  @IsOptional()
  @Matches(/^smtps?:\/\//, { message: 'must be an smtp:// or smtps:// URL' })
  SMTP_URL?: string;

  @IsOptional()
  @Matches(/^[0-9a-fA-F]{64}$/, { message: 'must be 64 hex characters (32 bytes)' })
  ENCRYPTION_KEY?: string;

  @IsOptional()
  @Transform(toInteger)
  @IsInt({ message: 'must be a whole number of milliseconds' })
  @Min(1, { message: 'must be a whole number of milliseconds' })
  WEBHOOK_TIMEOUT_MS: number = 10_000;

  @IsOptional()
  @Matches(/^\s*\d+(ms|s|m|h)\s*(,\s*\d+(ms|s|m|h)\s*)*$/, {
    message: 'must be a comma-separated list of durations such as 1m,5m,30m,2h,8h',
  })
  WEBHOOK_RETRY_SCHEDULE: string = '1m,5m,30m,2h,8h';

  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean({ message: 'must be true or false' })
  WEBHOOK_ALLOW_PRIVATE_TARGETS: boolean = false;

  @IsOptional()
  @Transform(toInteger)
  @IsInt({ message: 'must be a whole number' })
  @Min(0, { message: 'must be 0 or more' })
  EMAIL_HOURLY_LIMIT: number = 1_000;

  @IsOptional()
  @Transform(toInteger)
  @IsInt({ message: 'must be a whole number' })
  @Min(1, { message: 'must be at least 1' })
  OUTBOX_CONCURRENCY: number = 64;

  @IsOptional()
  @Transform(toInteger)
  @IsInt({ message: 'must be a whole number' })
  @Min(1, { message: 'must be at least 1' })
  OUTBOX_WORKSPACE_CONCURRENCY: number = 32;

  @IsOptional()
  @Transform(toInteger)
  @IsInt({ message: 'must be a whole number' })
  @Min(1, { message: 'must be at least 1' })
  OUTBOX_ENDPOINT_CONCURRENCY: number = 32;

  @IsOptional()
  @Transform(toInteger)
  @IsInt({ message: 'must be a whole number of milliseconds' })
  @Min(1, { message: 'must be a whole number of milliseconds' })
  DNS_TIMEOUT_MS: number = 3_000;

  @IsOptional()
  @IsString()
  DNS_SERVERS?: string;
}

export interface AppConfig {
  port: number;
  databaseUrl: string | undefined;
  /** Every statement of the API and the worker is cancelled past this (0: never); not migrations. */
  databaseStatementTimeoutMs: number;
  /** How far V8 lets the heap grow past its live data before a full collection (0: V8's own). */
  heapGrowingPercent: number;
  dataDir: string;
  /** REDIS_URL's addresses: one Redis server, or (several) nodes of a Redis Cluster; undefined: none. */
  redisNodes: string[] | undefined;
  /** The window of the per-workspace request limits and of failed-authentication limits. */
  rateLimitWindowMs: number;
  /** Failed authentications one client address may make per window. */
  authFailureLimit: number;
  /** Sign-in emails (public site and dashboard) one client address may ask for per hour. */
  signInClientLimit: number;
  /** Express's `trust proxy`: which proxies' X-Forwarded-For to believe for the client address. */
  trustProxy: boolean | number | string;
  baseUrl: string;
  publicBaseUrl: string;
  runWorker: boolean;
  /** JSON log lines at this level and above (pino levels). */
  logLevel: string;
  smtpUrl: string | undefined;
  encryptionKey: string | undefined;
  webhookTimeoutMs: number;
  webhookRetrySchedule: number[];
  webhookAllowPrivateTargets: boolean;
  /** Voter emails one workspace may send per hour; past it they wait for the next hour. */
  emailHourlyLimit: number;
  /** The outbox's send slots: sends in flight in this process. */
  outboxConcurrency: number;
  /** Sends in flight for one workspace, across every process. */
  outboxWorkspaceConcurrency: number;
  /** Sends in flight to one healthy endpoint, across every process (one while its circuit is open). */
  outboxEndpointConcurrency: number;
  /** Name servers for webhook targets (`ip` or `ip:port`); undefined: the system's. */
  dnsServers: string[] | undefined;
  /** Upper bound of one lookup of a webhook target, waiting for a lookup slot included. */
  dnsTimeoutMs: number;
}

export class ConfigError extends Error {}

/** A value as an error may print it: keys never, URLs without their password. */
function shown(name: string, value: string | undefined): string | undefined {
  if (value === undefined) return value;
  if (name === 'ENCRYPTION_KEY') return `(${value.length} characters, not shown)`;
  return name.endsWith('_URL') ? value.replace(/\/\/([^:/@,]*):[^@,]*@/g, '//$1:***@') : value;
}

function parseTrustProxy(value: string): boolean | number | string {
  if (value === 'true' || value === 'false') return value === 'true';
  return /^\d+$/.test(value) ? Number(value) : value;
}

/** `1.1.1.1, [2606:4700::1111]:53, 127.0.0.1:5353` as c-ares takes them. */
function parseDnsServers(text: string | undefined): string[] | undefined {
  if (text === undefined) return undefined;
  const servers = text.split(',').map((s) => s.trim()).filter(Boolean);
  try {
    if (servers.length === 0) throw new Error('empty');
    // setServers accepts and truncates ports past 65535.
    if (servers.some((s) => Number(/(?:\]|\.\d+):(\d+)$/.exec(s)?.[1] ?? 53) > 65535)) throw new Error('port');
    new Resolver().setServers(servers);
  } catch {
    throw new ConfigError(
      `Invalid configuration:\n  DNS_SERVERS=${JSON.stringify(text)}: ` +
        'must be a comma-separated list of IP addresses, each with an optional :port ([::1]:53 for IPv6)',
    );
  }
  return servers;
}

const REDIS_URL_RULE =
  'must be a redis:// (or rediss://) URL, or several, comma-separated, naming the nodes of a Redis Cluster';

/**
 * REDIS_URL: one Redis server's URL, or several (comma-separated) naming nodes of one Redis
 * Cluster, which ioredis's cluster client then discovers in full. Each must be a redis:// or
 * rediss:// URL with a host; a cluster's nodes share one scheme and have only database 0.
 */
export function parseRedisUrl(text: string | undefined): string[] | undefined {
  if (text === undefined) return undefined;
  const urls = text.split(',').map((part) => part.trim());
  const problem = (why: string) =>
    new ConfigError(`Invalid configuration:\n  REDIS_URL=${JSON.stringify(shown('REDIS_URL', text))}: ${REDIS_URL_RULE}; ${why}`);
  const parsed = urls.map((url) => {
    let parsedUrl: URL;
    try {
      parsedUrl = new URL(url);
    } catch {
      throw problem(url === '' ? 'an address is empty' : `${JSON.stringify(shown('REDIS_URL', url))} is not a redis:// URL with a host`);
    }
    if (!/^rediss?:$/.test(parsedUrl.protocol) || parsedUrl.hostname === '') {
      throw problem(`${JSON.stringify(shown('REDIS_URL', url))} is not a redis:// URL with a host`);
    }
    return parsedUrl;
  });
  if (parsed.length > 1) {
    if (new Set(parsed.map((url) => url.protocol)).size > 1) throw problem('the nodes mix redis:// and rediss://');
    const database = parsed.find((url) => !/^\/?0?$/.test(url.pathname));
    if (database) throw problem(`a Redis Cluster has only database 0, and ${JSON.stringify(shown('REDIS_URL', database.href))} names another`);
  }
  return urls;
}

const stripSlash = (url: string) => url.replace(/\/+$/, '');

/** Reads the environment, or throws one error naming every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const present = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value !== ''),
  );
  const vars = plainToInstance(EnvironmentVariables, present, { exposeDefaultValues: true });
  const errors = validateSync(vars, { skipMissingProperties: false });
  if (errors.length > 0) {
    const lines = errors.map(
      (e) => `  ${e.property}=${JSON.stringify(shown(e.property, env[e.property]))}: ${Object.values(e.constraints ?? {})[0]}`,
    );
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  if (vars.DATABASE_URL && !vars.ENCRYPTION_KEY) {
    throw new ConfigError(
      'Invalid configuration:\n  ENCRYPTION_KEY is required when DATABASE_URL is set: 64 hex characters (32 bytes), ' +
        'for example from `openssl rand -hex 32`. Keep it: endpoint secrets and chat URLs are encrypted with it.',
    );
  }
  const baseUrl = stripSlash(vars.BASE_URL ?? `http://localhost:${vars.PORT}`);
  return {
    port: vars.PORT,
    databaseUrl: vars.DATABASE_URL,
    databaseStatementTimeoutMs: vars.DATABASE_STATEMENT_TIMEOUT_MS,
    heapGrowingPercent: vars.HEAP_GROWING_PERCENT,
    dataDir: resolve(vars.DATA_DIR),
    redisNodes: parseRedisUrl(vars.REDIS_URL),
    rateLimitWindowMs: vars.RATE_LIMIT_WINDOW_MS,
    authFailureLimit: vars.AUTH_FAILURE_LIMIT,
    signInClientLimit: vars.SIGN_IN_CLIENT_LIMIT,
    trustProxy: parseTrustProxy(vars.TRUST_PROXY),
    baseUrl,
    publicBaseUrl: stripSlash(vars.PUBLIC_BASE_URL ?? baseUrl),
    runWorker: vars.RUN_WORKER,
    logLevel: vars.LOG_LEVEL,
    smtpUrl: vars.SMTP_URL,
    encryptionKey: vars.ENCRYPTION_KEY?.toLowerCase(),
    webhookTimeoutMs: vars.WEBHOOK_TIMEOUT_MS,
    webhookRetrySchedule: parseSchedule(vars.WEBHOOK_RETRY_SCHEDULE),
    webhookAllowPrivateTargets: vars.WEBHOOK_ALLOW_PRIVATE_TARGETS,
    emailHourlyLimit: vars.EMAIL_HOURLY_LIMIT,
    outboxConcurrency: vars.OUTBOX_CONCURRENCY,
    outboxWorkspaceConcurrency: vars.OUTBOX_WORKSPACE_CONCURRENCY,
    outboxEndpointConcurrency: vars.OUTBOX_ENDPOINT_CONCURRENCY,
    dnsServers: parseDnsServers(vars.DNS_SERVERS),
    dnsTimeoutMs: vars.DNS_TIMEOUT_MS,
  };
}

export const APP_CONFIG = Symbol('APP_CONFIG');
