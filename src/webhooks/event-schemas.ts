import { POST_STATUSES } from '../posts/post.entity';
import type { EventType } from '../outbox/outbox-event.entity';

/** What the document says of one event type: the schema of its `data`, and when it is sent. */
export interface WebhookEventDoc {
  summary: string;
  description: string;
  /** JSON Schema `properties` and `required` of the body's `data` object. */
  data: { properties: Record<string, object>; required: string[] };
}

const ref = (schema: string, description?: string) =>
  description ? { description, allOf: [{ $ref: `#/components/schemas/${schema}` }] } : { $ref: `#/components/schemas/${schema}` };

/**
 * The `webhooks` section of the OpenAPI document: one entry per event type an own server
 * receives. Adding an event type to EVENT_TYPES does not compile until it has its entry here,
 * and the entry is all it takes: the document builds its schema, headers and answers.
 */
export const WEBHOOK_EVENTS: Record<EventType, WebhookEventDoc> & Record<string, WebhookEventDoc> = {
  'post.created': {
    summary: 'A post was created',
    description: 'A post was created, through the API, the CLI or the demo seed.',
    data: { properties: { post: ref('Post') }, required: ['post'] },
  },
  'post.status_changed': {
    summary: 'A post\'s status changed',
    description: 'A post\'s status changed, a merge included (the merged post is `closed`, with `merged_into`).',
    data: {
      properties: {
        post: ref('Post', 'The post, with its new status.'),
        previous_status: { type: 'string', enum: POST_STATUSES, description: 'The status before the change.' },
        merged_into: ref('MergeTarget', 'Only on a merge: the post it was merged into.'),
      },
      required: ['post', 'previous_status'],
    },
  },
  'comment.created': {
    summary: 'A comment was posted',
    description: 'A comment was posted on a post (a team reply through the API, or a user\'s comment).',
    data: { properties: { post: ref('Post'), comment: ref('Comment') }, required: ['post', 'comment'] },
  },
  'post.voted': {
    summary: 'A vote was added',
    description: 'A vote was added to a post, on behalf of a person through the API or the CLI (the voter\'s name only, never an email).',
    data: {
      properties: {
        post: ref('Post', 'The post the vote counts on, with its new `votes`.'),
        voter: {
          type: 'object',
          additionalProperties: false,
          required: ['name'],
          properties: { name: { type: 'string', description: 'The voter\'s name.' } },
        },
      },
      required: ['post', 'voter'],
    },
  },
  'changelog.published': {
    summary: 'A changelog entry was published',
    description:
      'A changelog entry was published: at once (the API, the dashboard) or at its `publish_at`. Sent once per entry; editing ' +
      'it afterwards sends nothing.',
    data: { properties: { entry: ref('ChangelogEntry', 'The entry, published, with its linked posts.') }, required: ['entry'] },
  },
  'post.pending': {
    summary: 'A post awaits review',
    description:
      'A visitor\'s post was held for review (the workspace\'s `moderation`): `moderation` is `pending`. It shows nowhere until ' +
      'approved (`POST /api/v1/posts/{id}/approve`), which sends `post.created` then.',
    data: { properties: { post: ref('Post', 'The held post, `moderation: "pending"`.') }, required: ['post'] },
  },
  'comment.pending': {
    summary: 'A comment awaits review',
    description:
      'A visitor\'s comment was held for review (the workspace\'s `moderation`): `moderation` is `pending`. It shows nowhere until ' +
      'approved (`POST /api/v1/comments/{id}/approve`), which sends `comment.created` then.',
    data: { properties: { post: ref('Post'), comment: ref('Comment', 'The held comment, `moderation: "pending"`.') }, required: ['post', 'comment'] },
  },
  ping: {
    summary: 'A test event',
    description: 'Sent only by `POST /api/v1/webhook_endpoints/{id}/test`, to check that the endpoint receives and verifies deliveries.',
    data: {
      properties: { endpoint_id: { type: 'string', format: 'uuid', description: 'The endpoint tested.' } },
      required: ['endpoint_id'],
    },
  },
};

/** `post.status_changed` → `PostStatusChanged`. */
const pascal = (type: string) =>
  type
    .split(/[._]/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');

/** The headers of every delivery to an own server. */
const DELIVERY_HEADERS = (type: string) => [
  {
    name: 'Chorus-Event',
    in: 'header',
    required: true,
    description: 'The event type, as the body\'s `type`.',
    schema: { type: 'string', const: type },
  },
  {
    name: 'Chorus-Delivery',
    in: 'header',
    required: true,
    description: 'The delivery\'s id, as the body\'s `id`: the same on every attempt, so skip ids already handled.',
    schema: { type: 'string', format: 'uuid' },
  },
  {
    name: 'Chorus-Signature',
    in: 'header',
    required: true,
    description:
      '`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`, keyed with the whole signing secret (`whsec_` included); ' +
      'one `v1` per valid secret during a rotation. The scheme of Stripe\'s webhooks.',
    schema: { type: 'string', pattern: '^t=[0-9]+(,v1=[0-9a-f]{64})+$' },
  },
  {
    name: 'webhook-id',
    in: 'header',
    required: true,
    description: 'Standard Webhooks: the same as `Chorus-Delivery`.',
    schema: { type: 'string', format: 'uuid' },
  },
  {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    description: 'Standard Webhooks: unix seconds of this attempt.',
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
  {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description:
      'Standard Webhooks: `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<raw body>">` keyed with the ' +
      'base64-decoded part of the secret after `whsec_`, one entry (space-separated) per valid secret. Verify with the ' +
      '`standardwebhooks` package.',
    schema: { type: 'string' },
  },
  {
    name: 'User-Agent',
    in: 'header',
    required: true,
    description: 'Chorus and its version.',
    schema: { type: 'string', pattern: '^Chorus-Webhooks/' },
  },
];

/** The schemas (by name) and the `webhooks` section the document gets from WEBHOOK_EVENTS. */
export function webhookDocument(tag: string): { schemas: Record<string, object>; webhooks: Record<string, object> } {
  const schemas: Record<string, object> = {};
  const webhooks: Record<string, object> = {};
  for (const [type, doc] of Object.entries(WEBHOOK_EVENTS)) {
    const name = `${pascal(type)}Event`;
    schemas[name] = {
      type: 'object',
      description: `The body of a \`${type}\` delivery.`,
      additionalProperties: false,
      required: ['id', 'type', 'created_at', 'data'],
      properties: {
        id: { type: 'string', format: 'uuid', description: 'The delivery\'s id, as `Chorus-Delivery`.' },
        type: { type: 'string', const: type },
        created_at: { type: 'string', format: 'date-time', description: 'When the change was made.' },
        data: { type: 'object', additionalProperties: false, ...doc.data },
      },
    };
    webhooks[type] = {
      post: {
        operationId: `receive${pascal(type)}`,
        summary: doc.summary,
        description:
          `${doc.description} Sent to every enabled webhook endpoint subscribed to \`${type}\` (Slack and Discord get a ` +
          'message made for them instead). Verify `Chorus-Signature` on the raw bytes before parsing them.',
        tags: [tag],
        security: [],
        parameters: DELIVERY_HEADERS(type),
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: `#/components/schemas/${name}` } } } },
        responses: {
          '2XX': { description: 'Received. The answer\'s body is ignored.' },
          '4XX': {
            description:
              'A failure, as is a 3xx (never followed), a 5xx or no answer within 10 s: the delivery is retried after ' +
              '1 min, 5 min, 30 min, 2 h and 8 h.',
          },
        },
      },
    };
  }
  return { schemas, webhooks };
}
