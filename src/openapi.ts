import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { ErrorBody } from './common/openapi';

const ERROR_REF = { $ref: '#/components/schemas/ErrorBody' };
const EVERY_API_ERROR: Record<string, string> = {
  '401': '`unauthorized`: a missing, wrong or revoked key',
  '403': '`plan_required`: the workspace\'s plan has no API',
  '429': '`rate_limited`: over the plan\'s requests per minute, or too many failed authentications; see `Retry-After`',
  '500': '`server_error`: our failure; the message carries the request id',
  '503': '`query_timeout`: the database work took longer than the server allows and was cancelled; narrow a search, or try again',
};
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
const IDEMPOTENCY_ERRORS: Record<string, string> = {
  '400': '`invalid_request`, also `idempotency-key: was used with a different request`',
  '409': '`conflict`: a request with this `Idempotency-Key` is still in progress',
};

/**
 * The OpenAPI 3 document, built from the controllers' and DTOs' decorators, with what every
 * API route shares added here: the 401, 403, 429 and 500 answers and the headers, and on every
 * POST the `Idempotency-Key` header with its 400 and 409. Objects
 * allow no properties beyond those documented, so a test of real answers against it catches
 * any drift between the code and the document.
 */
export function openApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Chorus API')
    .setDescription(
      'Feedback boards: boards, posts, comments and webhook endpoints of the workspace a key belongs to. ' +
        'Errors are `{ error: { code, message } }`; `invalid_request` messages read `<field>: <problem>`.',
    )
    .setVersion('1')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'An API key: `chorus_key_…`' })
    .build();
  const document = SwaggerModule.createDocument(app, config, { extraModels: [ErrorBody] });
  for (const [path, item] of Object.entries(document.paths)) {
    if (!path.startsWith('/api/')) continue;
    for (const [method, operation] of Object.entries(item) as [string, { responses?: Record<string, any>; parameters?: unknown[] }][]) {
      if (!operation?.responses) continue;
      const post = method === 'post';
      const errors = post ? { ...EVERY_API_ERROR, ...IDEMPOTENCY_ERRORS } : EVERY_API_ERROR;
      for (const [status, description] of Object.entries(errors)) {
        operation.responses[status] ??= { description, content: { 'application/json': { schema: ERROR_REF } } };
      }
      if (post) operation.parameters = [...(operation.parameters ?? []), IDEMPOTENCY_KEY];
      for (const [status, response] of Object.entries(operation.responses)) {
        const replayed = post && status !== '401' ? { 'Idempotent-Replayed': { description: '`true` on an answer replayed for an `Idempotency-Key`.', schema: { type: 'string', enum: ['true'] } } } : {};
        const headers = { 'Request-Id': HEADERS['Request-Id'], ...(status === '401' ? {} : { ...HEADERS, ...replayed }) };
        response.headers = { ...headers, ...(status === '429' ? { 'Retry-After': { schema: { type: 'integer', minimum: 1 } } } : {}) };
      }
    }
  }
  for (const schema of Object.values(document.components?.schemas ?? {}) as Record<string, unknown>[]) {
    if (schema.type === 'object' && schema.properties) schema.additionalProperties = false;
  }
  document.openapi = '3.1.0';
  return toJsonSchemaNulls(document) as OpenAPIObject;
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
