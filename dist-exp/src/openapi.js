"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.openApiDocument = openApiDocument;
exports.serveOpenApi = serveOpenApi;
const swagger_1 = require("@nestjs/swagger");
const openapi_1 = require("./common/openapi");
const app_config_1 = require("./config/app-config");
const event_schemas_1 = require("./webhooks/event-schemas");
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
    description: 'Up to 255 characters. The same key with the same body within 24 hours replays the first answer (with ' +
        '`Idempotent-Replayed: true`) instead of running again; with another body: 400; while the first still runs: 409. ' +
        '5xx and 400 answers are not kept.',
    schema: { type: 'string', minLength: 1, maxLength: 255 },
};
const IDEMPOTENCY_EXAMPLES = {
    400: {
        idempotency_key_reused: (0, openapi_1.errorExample)('invalid_request', 'idempotency-key: was used with a different request', 'The key was used with another body'),
    },
    409: {
        idempotency_key_in_flight: (0, openapi_1.errorExample)('conflict', 'A request with this Idempotency-Key is still in progress; retry it later.', 'The first request with this key is still running'),
    },
};
const TAGS = [
    ['Boards', 'The workspace\'s boards.'],
    ['Posts', 'Feedback posts: list, search, create, change status, merge.'],
    ['Comments', 'Comments on posts, and official team replies.'],
    ['Webhook endpoints', 'Where events are delivered (own servers, Slack, Discord), and their deliveries.'],
    ['Webhook events', 'What an own server receives: one signed POST per event.'],
];
function openApiDocument(app) {
    const { baseUrl } = app.get(app_config_1.APP_CONFIG);
    const builder = new swagger_1.DocumentBuilder()
        .setTitle('Chorus API')
        .setDescription('Feedback boards: boards, posts, comments and webhook endpoints of the workspace a key belongs to. ' +
        'Errors are `{ error: { code, message } }`; `invalid_request` messages read `<field>: <problem>`.')
        .setVersion('1')
        .setLicense('Proprietary', `${baseUrl}/docs`)
        .addServer(baseUrl, 'This deployment (BASE_URL).')
        .addBearerAuth({
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'opaque',
        description: 'An API key, `chorus_key_…`, made with the CLI (`key create`). Opaque: nothing to decode.',
    });
    for (const [name, description] of TAGS)
        builder.addTag(name, description);
    const document = swagger_1.SwaggerModule.createDocument(app, builder.build(), {
        extraModels: [openapi_1.ErrorBody],
        operationIdFactory: openapi_1.fallbackOperationId,
    });
    for (const [path, item] of Object.entries(document.paths)) {
        if (!path.startsWith('/api/'))
            continue;
        for (const [method, operation] of Object.entries(item)) {
            if (!operation?.responses)
                continue;
            const post = method === 'post';
            for (const [status, examples] of Object.entries(post ? { ...openapi_1.COMMON_ERROR_EXAMPLES, ...IDEMPOTENCY_EXAMPLES } : openapi_1.COMMON_ERROR_EXAMPLES)) {
                const response = (operation.responses[status] ??= {
                    description: openapi_1.ERROR_DESCRIPTIONS[Number(status)],
                    content: { 'application/json': { schema: ERROR_REF, examples: {} } },
                });
                const content = (response.content ??= { 'application/json': { schema: ERROR_REF, examples: {} } })['application/json'];
                content.examples = { ...examples, ...content.examples };
            }
            if (post)
                operation.parameters = [...(operation.parameters ?? []), IDEMPOTENCY_KEY];
            for (const [status, response] of Object.entries(operation.responses)) {
                const replayed = post && status !== '401' ? { 'Idempotent-Replayed': { description: '`true` on an answer replayed for an `Idempotency-Key`.', schema: { type: 'string', enum: ['true'] } } } : {};
                const headers = { 'Request-Id': HEADERS['Request-Id'], ...(status === '401' ? {} : { ...HEADERS, ...replayed }) };
                response.headers = { ...headers, ...(status === '429' ? { 'Retry-After': { schema: { type: 'integer', minimum: 1 } } } : {}) };
            }
        }
    }
    const schemas = (document.components ??= {}).schemas ??= {};
    for (const schema of Object.values(schemas)) {
        if (schema.type === 'object' && schema.properties)
            schema.additionalProperties = false;
    }
    (0, openapi_1.applySchemaRules)(schemas);
    const events = (0, event_schemas_1.webhookDocument)('Webhook events');
    Object.assign(schemas, events.schemas);
    document.openapi = '3.1.0';
    return toJsonSchemaNulls({ ...document, webhooks: events.webhooks });
}
function toJsonSchemaNulls(node) {
    if (Array.isArray(node))
        return node.map(toJsonSchemaNulls);
    if (!node || typeof node !== 'object')
        return node;
    const { nullable, ...rest } = node;
    const out = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, toJsonSchemaNulls(v)]));
    if (nullable !== true)
        return out;
    if (out.$ref || out.allOf) {
        const ref = out.$ref ? { $ref: out.$ref } : out.allOf[0];
        const { $ref: _ref, allOf: _allOf, type: _type, ...annotations } = out;
        return { ...annotations, anyOf: [ref, { type: 'null' }] };
    }
    if (Array.isArray(out.enum))
        out.enum = [...out.enum, null];
    if (typeof out.type === 'string')
        out.type = [out.type, 'null'];
    return out;
}
function serveOpenApi(app) {
    const document = openApiDocument(app);
    swagger_1.SwaggerModule.setup('docs', app, document, {
        jsonDocumentUrl: 'api/v1/openapi.json',
        yamlDocumentUrl: 'api/v1/openapi.yaml',
        customSiteTitle: 'Chorus API',
    });
}
//# sourceMappingURL=openapi.js.map