import type { ApiKeyEntity } from '../../../auth/api-key.entity';
import type { DeliveryResponse } from '../../../webhooks/delivery.mapper';
import { EVENT_TYPES } from '../../../outbox/outbox-event.entity';
import { ENDPOINT_KINDS } from '../../../outbox/webhook-endpoint.entity';
import type { WebhookEndpointEntity } from '../../../outbox/webhook-endpoint.entity';
import { FormAlert, FormState, Select, TextField, Token } from '../../shared/forms';
import { Child, Fragment, Html, h } from '../../shared/html';
import { Pager } from '../../shared/pager';
import { shownText } from '../../shared/text';
import { day, minute, plural } from '../../shared/words';
import { AdminFrame, adminPage, Notice, SecretOnce } from './frame';
import { Table } from './table';

const KIND_WORDS: Record<string, string> = { webhook: 'Your server (signed webhook)', slack: 'Slack channel', discord: 'Discord channel' };
const DISABLED_WORDS: Record<string, string> = { user: 'turned off', consecutive_failures: 'turned off after 20 failures in a row', gone: 'turned off: the channel is gone' };

/** One checkbox per event type, ticked as in `chosen`. */
function EventChecks({ form_id, chosen, error }: { form_id: string; chosen: string[]; error?: string }): Html {
  return (
    <fieldset class="field" aria-describedby={error ? `${form_id}-events-error` : undefined}>
      <legend class="label">Events</legend>
      {EVENT_TYPES.map((type) => (
        <div class="check">
          <input type="checkbox" id={`${form_id}-event-${type}`} name="events" value={type} checked={chosen.includes(type)} />
          <label for={`${form_id}-event-${type}`}>
            <code>{type}</code>
          </label>
        </div>
      ))}
      {error ? (
        <span class="error" id={`${form_id}-events-error`}>
          Events {error}
        </span>
      ) : null}
    </fieldset>
  );
}

export interface DevelopersView {
  plan: string;
  /** The plan the API needs, when this workspace's has none. */
  planNeeded: string | null;
  keys: (ApiKeyEntity & { creator: string; lastUsedAt: Date | null })[];
  endpoints: WebhookEndpointEntity[];
  endpointLimit: number;
  ssoMadeAt: Date | null;
  endpointForm: FormState & { events: string[] };
  notice: string | null;
  /** A secret made by the request this page answers, shown this once. */
  secret: { label: string; value: string; note?: Child } | null;
  publicExample: { site: string; workspace: string };
}

/** Developers: API keys, webhook/Slack/Discord endpoints, the SSO secret. */
export function developersPage(frame: AdminFrame, view: DevelopersView): string {
  const a = frame.paths.admin;
  const token = frame.member!.token;
  const d = (path: string) => a(`/admin/developers${path}`);
  return adminPage(
    frame,
    'Developers',
    'developers',
    <>
      <h1>Developers</h1>
      <Notice text={view.notice} />
      {view.secret ? (
        <SecretOnce label={view.secret.label} secret={view.secret.value}>
          {view.secret.note}
        </SecretOnce>
      ) : null}
      {view.planNeeded ? (
        <section class="card stack" aria-labelledby="plan-h">
          <h2 id="plan-h">API keys and notifications</h2>
          <p>
            The API, webhooks to your servers, and Slack and Discord messages are on the <strong>{view.planNeeded}</strong> plan and above. This
            workspace is on the <strong>{view.plan}</strong> plan; ask whoever runs your Chorus to change it. The public site and single sign-on
            work on every plan.
          </p>
        </section>
      ) : (
        <>
          <section class="stack" aria-labelledby="keys-h">
            <h2 id="keys-h">API keys</h2>
            <p>A key can read and change everything in this workspace, private boards included. Keep it on your server.</p>
            {view.keys.length > 0 ? (
              <Table caption="API keys" columns={['Key', 'Created by', 'Created', 'Last used', { hidden: 'Actions' }]}>
                {view.keys.map((key) => (
                  <tr>
                    <td>
                      <code>{key.keyPrefix}…</code>
                    </td>
                    <td class="user-text">{shownText(key.creator)}</td>
                    <td>{day(key.createdAt)}</td>
                    <td>{key.lastUsedAt ? minute(key.lastUsedAt) : 'Never'}</td>
                    <td>
                      {key.revokedAt ? (
                        `Revoked ${day(key.revokedAt)}`
                      ) : (
                        <form method="post" action={d(`/keys/${key.id}/revoke`)} class="inline">
                          <Token value={token} />
                          <button type="submit" class="secondary" aria-label={`Revoke ${key.keyPrefix}…`}>
                            Revoke
                          </button>
                        </form>
                      )}
                    </td>
                  </tr>
                ))}
              </Table>
            ) : (
              <p class="empty">No keys yet.</p>
            )}
            <form method="post" action={d('/keys')}>
              <Token value={token} />
              <button type="submit">Create key</button>
            </form>
          </section>
          <section class="stack" aria-labelledby="endpoints-h">
            <h2 id="endpoints-h">Endpoints</h2>
            <p>
              Where events go: your server (signed with a <code>whsec_</code> secret), or a Slack or Discord channel.{' '}
              {plural(view.endpoints.length, 'endpoint')} of the plan's {view.endpointLimit}.
            </p>
            {view.endpoints.length > 0 ? (
              <Table caption="Endpoints" columns={['Endpoint', 'Events', 'State', { hidden: 'Links' }]}>
                {view.endpoints.map((e) => (
                  <tr>
                    <td class="user-text">
                      <a href={d(`/endpoints/${e.id}`)}>{KIND_WORDS[e.kind]}</a>
                      <br />
                      <code>{e.urlShown}</code>
                    </td>
                    <td>{e.events.join(', ')}</td>
                    <td>{e.enabled ? `On${e.consecutiveFailures > 0 ? `, ${plural(e.consecutiveFailures, 'failure')} in a row` : ''}` : `Off (${DISABLED_WORDS[e.disabledReason ?? 'user']})`}</td>
                    <td>
                      <a href={d(`/endpoints/${e.id}/deliveries`)} aria-label={`Deliveries of ${e.urlShown}`}>
                        Deliveries
                      </a>
                    </td>
                  </tr>
                ))}
              </Table>
            ) : (
              <p class="empty">No endpoints yet.</p>
            )}
            <form method="post" action={d('/endpoints')} class="card" novalidate aria-labelledby="new-endpoint">
              <h3 id="new-endpoint">New endpoint</h3>
              <Token value={token} />
              <FormAlert form={view.endpointForm} />
              <Select form_id="endpoint" name="kind" label="Kind" form={view.endpointForm} options={ENDPOINT_KINDS.map((k) => ({ value: k, label: KIND_WORDS[k] }))} />
              <TextField form_id="endpoint" name="url" type="url" label="URL" form={view.endpointForm} required hint="https, reachable from the internet; for Slack or Discord the channel's incoming-webhook URL." />
              <EventChecks form_id="endpoint" chosen={view.endpointForm.events} error={view.endpointForm.errors.events} />
              <button type="submit">Create endpoint</button>
            </form>
          </section>
        </>
      )}
      <section class="stack" aria-labelledby="sso-h">
        <h2 id="sso-h">Single sign-on</h2>
        <p>
          Your app signs a token with this secret and sends its users to the board signed in: HS256, the whole secret as the key, claims{' '}
          <code>email</code>, <code>name</code> and <code>exp</code> (at most 24 hours ahead).
        </p>
        <pre>
          <code>{`const token = await new SignJWT({ email: user.email, name: user.name })
  .setProtectedHeader({ alg: 'HS256' })
  .setExpirationTime('5m')
  .sign(new TextEncoder().encode(process.env.CHORUS_SSO_SECRET));
// then send the user to:
${view.publicExample.site}/${view.publicExample.workspace}/sso?token=\${token}&redirect=/${view.publicExample.workspace}`}</code>
        </pre>
        <p>{view.ssoMadeAt ? `The secret was made ${minute(view.ssoMadeAt)}. A new one replaces it; the old one keeps working for 24 hours.` : 'This workspace has no SSO secret yet.'}</p>
        <form method="post" action={d('/sso')}>
          <Token value={token} />
          <button type="submit">{view.ssoMadeAt ? 'Rotate' : 'Create SSO secret'}</button>
        </form>
      </section>
    </>,
  );
}

export interface EndpointView {
  endpoint: WebhookEndpointEntity;
  form: FormState & { events: string[] };
  notice: string | null;
  secret: string | null;
}

/** One endpoint: its events, on and off, its secret, a test event, deleting it. */
export function endpointPage(frame: AdminFrame, view: EndpointView): string {
  const a = frame.paths.admin;
  const token = frame.member!.token;
  const e = view.endpoint;
  const base = a(`/admin/developers/endpoints/${e.id}`);
  return adminPage(
    frame,
    'Endpoint',
    'developers',
    <div class="stack">
      <p>
        <a href={a('/admin/developers')}>Developers</a>
      </p>
      <h1>{KIND_WORDS[e.kind]}</h1>
      <Notice text={view.notice} />
      {view.secret ? (
        <SecretOnce label="The new signing secret" secret={view.secret}>
          <p>The secret before it keeps signing deliveries for 24 hours, so that your server can change over.</p>
        </SecretOnce>
      ) : null}
      <dl class="facts card">
        <dt>URL</dt>
        <dd>
          <code>{e.urlShown}</code>
        </dd>
        <dt>State</dt>
        <dd>{e.enabled ? 'On' : `Off (${DISABLED_WORDS[e.disabledReason ?? 'user']})`}</dd>
        <dt>Failures in a row</dt>
        <dd>{e.consecutiveFailures}</dd>
        <dt>Created</dt>
        <dd>{day(e.createdAt)}</dd>
      </dl>
      <p>
        <a href={`${base}/deliveries`}>Deliveries</a>
      </p>
      <form method="post" action={base} class="card" novalidate aria-labelledby="events-h">
        <h2 id="events-h">What it receives</h2>
        <Token value={token} />
        <FormAlert form={view.form} />
        <EventChecks form_id="edit" chosen={view.form.events} error={view.form.errors.events} />
        <button type="submit">Save events</button>
      </form>
      <div class="card stack">
        <form method="post" action={`${base}/${e.enabled ? 'disable' : 'enable'}`} class="inline">
          <Token value={token} />
          <button type="submit" class="secondary">
            {e.enabled ? 'Turn off' : 'Turn on'}
          </button>
        </form>{' '}
        <form method="post" action={`${base}/test`} class="inline">
          <Token value={token} />
          <button type="submit" class="secondary">
            Send test event
          </button>
        </form>{' '}
        {e.kind === 'webhook' ? (
          <form method="post" action={`${base}/rotate`} class="inline">
            <Token value={token} />
            <button type="submit" class="secondary">
              Rotate secret
            </button>
          </form>
        ) : null}{' '}
        <form method="post" action={`${base}/delete`} class="inline">
          <Token value={token} />
          <button type="submit" class="danger">
            Delete endpoint
          </button>
        </form>
      </div>
    </div>,
  );
}

const STATUS_WORDS: Record<string, string> = { pending: 'Pending', delivered: 'Delivered', failed: 'Failed', cancelled: 'Cancelled' };

/** An endpoint's deliveries, newest first, every attempt; Retry on a failed one; recovering what failed since a time. */
export function deliveriesPage(
  frame: AdminFrame,
  view: { endpoint: WebhookEndpointEntity; deliveries: DeliveryResponse[]; next: string | null; prev: string | null; notice: string | null; recover: FormState },
): string {
  const a = frame.paths.admin;
  const token = frame.member!.token;
  const e = view.endpoint;
  return adminPage(
    frame,
    'Deliveries',
    'developers',
    <div class="stack">
      <p>
        <a href={a(`/admin/developers/endpoints/${e.id}`)}>The endpoint</a>
      </p>
      <h1>Deliveries</h1>
      <p class="user-text">
        To <code>{e.urlShown}</code>, newest first.
      </p>
      <Notice text={view.notice} />
      {view.deliveries.length === 0 ? <p class="empty">Nothing was sent to this endpoint yet.</p> : null}
      {view.deliveries.map((delivery) => (
        <section class="card stack" aria-label={`Delivery ${delivery.id}`}>
          <p>
            <code>{delivery.event_type}</code> <strong>{STATUS_WORDS[delivery.status]}</strong>
            {delivery.reason ? ` (${delivery.reason.replace(/_/g, ' ')})` : ''} · {minute(delivery.created_at)}
            {delivery.next_attempt_at ? ` · next attempt ${minute(delivery.next_attempt_at)}` : ''}
            <br />
            <span class="count">
              Delivery <code>{delivery.id}</code>
            </span>
          </p>
          {delivery.attempts.length > 0 ? (
            <Table caption={`Attempts of delivery ${delivery.id}`} columns={['Time', 'Duration', 'Status code', 'Error']}>
              {delivery.attempts.map((attempt) => (
                <tr>
                  <td>{minute(attempt.at)}</td>
                  <td>{attempt.duration_ms} ms</td>
                  <td>{attempt.status_code ?? '—'}</td>
                  <td>{attempt.error ? attempt.error.replace(/_/g, ' ') : '—'}</td>
                </tr>
              ))}
            </Table>
          ) : (
            <p class="count">No attempt yet.</p>
          )}
          {delivery.status === 'failed' ? (
            <form method="post" action={a(`/admin/developers/deliveries/${delivery.id}/retry`)}>
              <Token value={token} />
              <button type="submit" class="secondary" aria-label={`Retry delivery ${delivery.id}`}>
                Retry
              </button>
            </form>
          ) : null}
        </section>
      ))}
      <Pager prev={view.prev} next={view.next} labels={['Newer deliveries', 'Older deliveries']} />
      <form method="post" action={a(`/admin/developers/endpoints/${e.id}/recover`)} class="card" novalidate aria-labelledby="recover-h">
        <h2 id="recover-h">Recover failed deliveries</h2>
        <p>Sends again every delivery to this endpoint that failed since a time, within the last 7 days (UTC).</p>
        <Token value={token} />
        <FormAlert form={view.recover} />
        <TextField form_id="recover" name="since" label="Failed since" form={view.recover} hint="A date and time in UTC, such as 2026-11-21 14:00." />
        <button type="submit">Recover</button>
      </form>
    </div>,
  );
}

