import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { applySchemaRules, COMMON_ERROR_EXAMPLES, ERROR_DESCRIPTIONS, ErrorBody, errorExample, fallbackOperationId } from './common/openapi';
import { APP_CONFIG, AppConfig } from './config/app-config';
import { webhookDocument } from './webhooks/event-schemas';

const ERROR_REF = { $ref: '#/components/schemas/ErrorBody' };
const HEADERS = {
  'Request-Id': { description: 'Identifies the request in our logs.', schema: { type: 'string' } },
  'X-RateLimit-Limit': { description: 'The plan\'s requests per window.', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Requests the window still takes.', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'Unix time (s) when the oldest counted request leaves the window.', schema: { type: 'integer' } },
};
const IDEMPOTENCY_KEY = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Up to 255 characters. The same key with the same body within 24 hours replays the first answer (with ' +
    '`Idempotent-Replayed: true`) instead of running again; with another body: 400; while the first still runs: 409. ' +
    '5xx and 400 answers are not kept.',
  schema: { type: 'string', minLength: 1, maxLength: 255 },
};
/** What an `Idempotency-Key` can answer, on every POST beside the route's own errors. */
const IDEMPOTENCY_EXAMPLES: Record<number, Record<string, ReturnType<typeof errorExample>>> = {
  400: {
    idempotency_key_reused: errorExample(
      'invalid_request',
      'idempotency-key: was used with a different request',
      'The key was used with another body',
    ),
  },
  409: {
    idempotency_key_in_flight: errorExample(
      'conflict',
      'A request with this Idempotency-Key is still in progress; retry it later.',
      'The first request with this key is still running',
    ),
  },
};

const TAGS: [name: string, description: string][] = [
  ['Boards', 'The workspace\'s boards.'],
  ['Posts', 'Feedback posts: list, search, create, change status, merge.'],
  ['Comments', 'Comments on posts, and official team replies.'],
  ['Moderation', 'Visitors\' posts and comments held for review (the workspace\'s `moderation`): the queue, approve and reject.'],
  ['Changelog', 'What the team shipped, linked to the posts that asked for it; publishing tells their voters once.'],
  ['Webhook endpoints', 'Where events are delivered (own servers, Slack, Discord), and their deliveries.'],
  ['Webhook events', 'What an own server receives: one signed POST per event.'],
  ['Export', 'The whole workspace as one archive, to keep or to move.'],
];

/**
 * The OpenAPI 3.1 document, built from the controllers' and DTOs' decorators, with what every
 * API route shares added here: the 401, 403, 429 and 500 answers with their examples, the
 * headers, on every POST the `Idempotency-Key` header with its 400 and 409, the servers
 * (BASE_URL) and the `webhooks` section. Objects allow no properties
 * beyond those documented, so a test of real answers against it catches any drift between the
 * code and the document; another lints it and compiles a client generated from it.
 */
export function openApiDocument(app: INestApplication): OpenAPIObject {
  const { baseUrl } = app.get<AppConfig>(APP_CONFIG);
  const builder = new DocumentBuilder()
    .setTitle('Chorus API')
    .setDescription(
      'Feedback boards: boards, posts, comments and webhook endpoints of the workspace a key belongs to. ' +
        'Errors are `{ error: { code, message } }`; `invalid_request` messages read `<field>: <problem>`.',
    )
    .setVersion('1')
    .setLicense('Proprietary', `${baseUrl}/docs`)
    .addServer(baseUrl, 'This deployment (BASE_URL).')
    .addBearerAuth({
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'opaque',
      description: 'An API key, `chorus_key_…`, made with the CLI (`key create`). Opaque: nothing to decode.',
    });
  for (const [name, description] of TAGS) builder.addTag(name, description);
  const document = SwaggerModule.createDocument(app, builder.build(), {
    extraModels: [ErrorBody],
    operationIdFactory: fallbackOperationId,
  });
  for (const [path, item] of Object.entries(document.paths)) {
    if (!path.startsWith('/api/')) continue;
    for (const [method, operation] of Object.entries(item) as [string, { responses?: Record<string, any>; parameters?: unknown[] }][]) {
      if (!operation?.responses) continue;
      const post = method === 'post';
      for (const [status, examples] of Object.entries(post ? { ...COMMON_ERROR_EXAMPLES, ...IDEMPOTENCY_EXAMPLES } : COMMON_ERROR_EXAMPLES)) {
        const response = (operation.responses[status] ??= {
          description: ERROR_DESCRIPTIONS[Number(status)],
          content: { 'application/json': { schema: ERROR_REF, examples: {} } },
        });
        const content = (response.content ??= { 'application/json': { schema: ERROR_REF, examples: {} } })['application/json'];
        content.examples = { ...examples, ...content.examples };
      }
      if (post) operation.parameters = [...(operation.parameters ?? []), IDEMPOTENCY_KEY];
      for (const [status, response] of Object.entries(operation.responses)) {
        const replayed = post && status !== '401' ? { 'Idempotent-Replayed': { description: '`true` on an answer replayed for an `Idempotency-Key`.', schema: { type: 'string', enum: ['true'] } } } : {};
        const headers = { 'Request-Id': HEADERS['Request-Id'], ...(status === '401' ? {} : { ...HEADERS, ...replayed }) };
        response.headers = { ...headers, ...(status === '429' ? { 'Retry-After': { schema: { type: 'integer', minimum: 1 } } } : {}) };
      }
    }
  }
  const schemas = (document.components ??= {}).schemas ??= {};
  for (const schema of Object.values(schemas) as Record<string, unknown>[]) {
    if (schema.type === 'object' && schema.properties) schema.additionalProperties = false;
  }
  applySchemaRules(schemas);
  const events = webhookDocument('Webhook events');
  Object.assign(schemas, events.schemas);
  document.openapi = '3.1.0';
  return toJsonSchemaNulls({ ...document, webhooks: events.webhooks }) as OpenAPIObject;
}

/**
 * OpenAPI 3.1 says "may be null" the JSON Schema way: `type: ['string', 'null']`, and
 * `anyOf: [{ $ref }, { type: 'null' }]` for a nullable reference (3.0's `nullable` beside a
 * `$ref` means nothing).
 */
function toJsonSchemaNulls(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toJsonSchemaNulls);
  if (!node || typeof node !== 'object') return node;
  const { nullable, ...rest } = node as Record<string, unknown>;
  const out = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, toJsonSchemaNulls(v)]));
  if (nullable !== true) return out;
  if (out.$ref || out.allOf) {
    const ref = out.$ref ? { $ref: out.$ref } : (out.allOf as unknown[])[0];
    const { $ref: _ref, allOf: _allOf, type: _type, ...annotations } = out;
    return { ...annotations, anyOf: [ref, { type: 'null' }] };
  }
  if (Array.isArray(out.enum)) out.enum = [...out.enum, null];
  if (typeof out.type === 'string') out.type = [out.type, 'null'];
  return out;
}

/** Serves the document at /api/v1/openapi.json and a browsable page at /docs (no key needed). */
export function serveOpenApi(app: INestApplication): void {
  const document = openApiDocument(app);
  SwaggerModule.setup('docs', app, document, {
    jsonDocumentUrl: 'api/v1/openapi.json',
    yamlDocumentUrl: 'api/v1/openapi.yaml',
    customSiteTitle: 'Chorus API',
  });
}
