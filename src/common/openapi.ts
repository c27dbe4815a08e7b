import { applyDecorators, Type } from '@nestjs/common';
import { ApiOperation, ApiProperty, ApiResponse, ApiSchema, getSchemaPath } from '@nestjs/swagger';
import { ERROR_STATUS, ErrorCode } from './app-error';

@ApiSchema({ name: 'ErrorDetail' })
class ErrorDetail {
  @ApiProperty({ enum: Object.keys(ERROR_STATUS) })
  code!: ErrorCode;

  @ApiProperty({ description: '`invalid_request`: `<field>: <problem>`, several joined by `; `.' })
  message!: string;
}

/** Every error answer: `{ error: { code, message } }`. */
export class ErrorBody {
  @ApiProperty({ type: ErrorDetail })
  error!: ErrorDetail;
}

/**
 * An operation as a person names and describes it. Every route takes this one decorator:
 * `id` is the operationId generators turn into method names (`listPosts`, `castVote`: a verb,
 * then the resource, camelCase), `summary` a few words for menus, `description` the rest.
 */
export const Operation = (op: { id: string; summary: string; description: string }) =>
  ApiOperation({ operationId: op.id, summary: op.summary, description: op.description });

/**
 * The fallback for a route without `@Operation`: `<method><Resource>` from the handler and the
 * controller (`VotesController.create` → `createVotes`), never the framework's
 * `VotesController_create`. The lint test still asks for a description.
 */
export const fallbackOperationId = (controllerKey: string, methodKey: string): string =>
  methodKey + controllerKey.replace(/Controller$/, '');

type Schema = Record<string, any>;
const rules = new Map<Function, (schema: Schema) => Schema>();

/** A rule on a class's schema as a whole, which `@ApiProperty` cannot say (see RequireOneOf). */
export const SchemaRule = (rule: (schema: Schema) => Schema): ClassDecorator => (target) => {
  rules.set(target, rule);
};

/**
 * At least one of these properties: the schema becomes `anyOf` one object per property that
 * requires it, which generators type as a union (`{ name: string; email?: string } | …`);
 * `anyOf: [{ required: [a] }, …]` beside the properties would be typed `unknown`.
 */
export const RequireOneOf = (...keys: string[]) =>
  SchemaRule(({ description, ...object }) => ({
    description,
    anyOf: keys.map((key) => ({ ...object, required: [key] })),
  }));

/** Applies every `@SchemaRule` to the document's schemas. */
export function applySchemaRules(schemas: Record<string, Schema>): void {
  for (const [type, rule] of rules) {
    const name = schemaName(type as Type);
    if (schemas[name]) schemas[name] = rule(schemas[name]);
  }
}

const named = <T extends Type>(cls: T, name: string): T => Object.defineProperty(cls, 'name', { value: name });
const wrappers = new Map<string, Type>();
/** The schema name of a class: its `@ApiSchema` name, else the class name. */
const schemaName = (type: Type) => getSchemaPath(type).split('/').pop()!;

/** `{ data: T }` (or `{ data: T[] }`), as a schema of its own. */
export function DataOf(type: Type, options: { list?: boolean } = {}): Type {
  const name = `${schemaName(type)}${options.list ? 'List' : ''}Answer`;
  if (!wrappers.has(name)) {
    class Wrapper {
      @ApiProperty({ type, isArray: !!options.list })
      data!: unknown;
    }
    wrappers.set(name, named(Wrapper, name));
  }
  return wrappers.get(name)!;
}

/** `{ data: T[], has_more, next_offset }`, as a schema of its own. */
export function PageOf(type: Type): Type {
  const name = `${schemaName(type)}Page`;
  if (!wrappers.has(name)) {
    class Page {
      @ApiProperty({ type, isArray: true })
      data!: unknown[];

      @ApiProperty({ description: 'Whether another page follows.' })
      has_more!: boolean;

      @ApiProperty({ type: 'integer', nullable: true, description: '`offset + data.length` while `has_more`, else null.' })
      next_offset!: number | null;
    }
    wrappers.set(name, named(Page, name));
  }
  return wrappers.get(name)!;
}

/** An example error answer, named by its code. */
export const errorExample = (code: ErrorCode, message: string, summary?: string) => ({
  summary: summary ?? code,
  value: { error: { code, message } },
});

type Examples = Record<string, ReturnType<typeof errorExample>>;

export const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: '`invalid_request` (`<field>: <problem>`) or `invalid_json`',
  401: '`unauthorized`: a missing, wrong or revoked key',
  403: '`plan_required`: the workspace\'s plan has no API (or no more of what was asked)',
  404: '`not_found`: no such resource in this workspace',
  409: '`conflict`',
  413: '`payload_too_large`: a body over 256 KiB',
  429: '`rate_limited`: over the plan\'s requests per minute, or too many failed authentications; see `Retry-After`',
  500: '`server_error`: our failure; the message carries the request id',
  503: '`query_timeout`: the database work took longer than the server allows and was cancelled; narrow a search, or try again',
};

/**
 * Examples every route can answer with, as the code words them. The OpenAPI test checks that
 * real answers of each status carry the messages of its examples.
 */
export const COMMON_ERROR_EXAMPLES: Record<number, Examples> = {
  401: {
    missing_key: errorExample('unauthorized', 'Send an API key as "Authorization: Bearer <key>".', 'No key'),
    wrong_key: errorExample('unauthorized', 'The API key is wrong or revoked.', 'A wrong or revoked key'),
  },
  403: { plan_required: errorExample('plan_required', 'The API is available on the Pro plan and above.') },
  429: {
    rate_limited: errorExample('rate_limited', 'This workspace\'s plan allows 60 requests per minute. Retry in 12 s.'),
  },
  500: {
    server_error: errorExample(
      'server_error',
      'Something went wrong on our side. Try again later; if it persists, contact support with request id 5f0c6b1e-8a1d-4f57-9a51-2cf3a4b1e0d7.',
    ),
  },
  503: {
    query_timeout: errorExample(
      'query_timeout',
      'The request took longer than the database allows (5000 ms) and was cancelled. ' +
        'For a search, use longer or more distinctive terms, or narrow it with board or status; otherwise try again.',
    ),
  },
};

/** An error status of a route with the message of one real answer, as `[404, 'No such post in this workspace.']`. */
export type ErrorWithExample = [status: 400 | 403 | 404 | 409, message: string];

const CODE_OF: Record<number, ErrorCode> = { 400: 'invalid_request', 403: 'plan_required', 404: 'not_found', 409: 'conflict' };
const BODY_EXAMPLES: Record<number, Examples> = {
  400: { invalid_json: errorExample('invalid_json', 'body: is not valid JSON') },
  413: { payload_too_large: errorExample('payload_too_large', 'body: must be at most 256 KiB') },
};

/**
 * The error answers of a route beyond those every API route has (401, 403, 429, 500), each
 * with an example: give the message of a real answer, `[404, 'No such post in this workspace.']`.
 * A bare 400 documents `invalid_json` and a bare 413 the size limit (routes that take a body).
 */
export const ApiErrors = (...statuses: (ErrorWithExample | 400 | 413)[]) => {
  const examples = new Map<number, Examples>();
  for (const entry of statuses) {
    const [status, message] = Array.isArray(entry) ? entry : [entry, undefined];
    const found = examples.get(status) ?? { ...(BODY_EXAMPLES[status] ?? {}) };
    if (message) {
      let key: string = CODE_OF[status];
      for (let i = 2; key in found; i++) key = `${CODE_OF[status]}_${i}`;
      found[key] = errorExample(CODE_OF[status], message);
    }
    examples.set(status, found);
  }
  return applyDecorators(
    ...[...examples].map(([status, found]) =>
      ApiResponse({
        status,
        description: ERROR_DESCRIPTIONS[status],
        type: ErrorBody,
        examples: status in COMMON_ERROR_EXAMPLES ? { ...COMMON_ERROR_EXAMPLES[status], ...found } : found,
      }),
    ),
  );
};
