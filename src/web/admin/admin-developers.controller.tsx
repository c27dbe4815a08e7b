import { Body, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import { ApiKeysService } from '../../auth/api-keys.service';
import { AppError } from '../../common/app-error';
import { toPage } from '../../common/page.query';
import type { ChorusRequest } from '../../common/request-context';
import { isTimestamp, validateForm } from '../../common/validation';
import { Links } from '../../config/links';
import { DeliveriesService } from '../../webhooks/deliveries.service';
import { CreateEndpointDto, UpdateEndpointDto } from '../../webhooks/dto/endpoint.dto';
import { EndpointToolsService } from '../../webhooks/endpoint-tools.service';
import { EndpointsService } from '../../webhooks/endpoints.service';
import { isPlan, PLAN_NAMES, PLANS } from '../../workspaces/plans';
import { SsoService } from '../../workspaces/sso.service';
import { emptyForm, FormState, refusalOf } from '../shared/forms';
import { h } from '../shared/html';
import { pageOffset } from '../shared/page-address';
import { PageError } from '../shared/page-error';
import { PageController } from '../shared/page-controller';
import { Page, Redirect } from '../shared/page-response';
import type { AdminContext } from './admin-context';
import { AdminGuard } from './admin.guard';
import { AdminPaths } from './admin-paths';
import { DevelopersView, deliveriesPage, developersPage, endpointPage } from './views/developers';
import { confirmPage } from './views/posts';

type Form = Record<string, string | string[] | undefined>;
const PRIVATE = { public: false as const };
const PAGE = 25;

const NOTICES: Record<string, string> = {
  revoked: 'The key was revoked: requests with it are refused from now on.',
  saved: 'The endpoint was saved.',
  enabled: 'The endpoint is on; its failure count starts again.',
  disabled: 'The endpoint is off: nothing is sent to it until it is turned on.',
  deleted: 'The endpoint was deleted, with its deliveries.',
  retried: 'The delivery will be sent again in a moment.',
};

/** A form's ticked boxes of one name: none, one (a string) or several. */
const ticked = (value: string | string[] | undefined) => (value === undefined ? [] : Array.isArray(value) ? value : [value]);
const text = (value: string | string[] | undefined) => (typeof value === 'string' ? value : '');
/** The cheapest plan with the API. */
const API_PLAN = PLAN_NAMES.find((plan) => PLANS[plan].api)!;

/**
 * Developers: API keys (made here, shown once; revoked), endpoints (their deliveries, tests,
 * secrets, on and off), and the workspace's SSO secret, through the services the API and the
 * CLI use. A secret is shown once, on the page answering the request that made it: never in an
 * address, a log line or a later page. What cannot be undone is confirmed first.
 */
@PageController('admin/developers', AdminGuard)
export class AdminDevelopersController {
  constructor(
    private readonly keys: ApiKeysService,
    private readonly endpoints: EndpointsService,
    private readonly tools: EndpointToolsService,
    private readonly deliveries: DeliveriesService,
    private readonly sso: SsoService,
    private readonly paths: AdminPaths,
    private readonly links: Links,
  ) {}

  @Get()
  page(@Req() req: ChorusRequest, @Query('done') done: unknown): Promise<Page> {
    return this.developers(req, { notice: typeof done === 'string' ? (NOTICES[done] ?? null) : null });
  }

  @Post('keys')
  async createKey(@Req() req: ChorusRequest): Promise<Page> {
    const admin = this.withApi(req);
    const { key } = await this.keys.createFor(admin.workspace.id, admin.member.personId);
    return this.developers(req, {
      status: 201,
      secret: { label: 'Your new API key', value: key, note: <p>Send it as <code>Authorization: Bearer …</code>. Replies and status changes made with it are recorded as you.</p> },
    });
  }

  @Post('keys/:id/revoke')
  @HttpCode(303)
  async revoke(@Req() req: ChorusRequest, @Param('id') id: string, @Body() form: Form): Promise<Page | Redirect> {
    const admin = this.withApi(req);
    const key = (await this.keys.list(admin.workspace.id)).find((k) => k.id === id);
    if (!key) throw AppError.notFound('API key');
    if (form.confirm !== 'yes') {
      return this.confirm(req, {
        title: `Revoke the key ${key.keyPrefix}…?`,
        explanation: 'Every request made with it is refused from the moment it is revoked, on every server. This cannot be undone: a new key can be made instead.',
        action: this.paths.admin(`/admin/developers/keys/${id}/revoke`),
        button: 'Revoke',
      });
    }
    await this.keys.revokeIn(admin.workspace.id, id);
    return this.done('revoked');
  }

  @Post('endpoints')
  async createEndpoint(@Req() req: ChorusRequest, @Body() form: Form): Promise<Page> {
    const admin = this.withApi(req);
    const values = { kind: text(form.kind) || 'webhook', url: text(form.url) };
    const events = ticked(form.events);
    const checked = await validateForm(CreateEndpointDto, { ...values, events }, ['kind', 'url', 'events']);
    const refused = (errors: Record<string, string>) => this.developers(req, { status: 400, endpointForm: { values, errors, events } });
    if ('errors' in checked) return refused(checked.errors);
    try {
      const { secret } = await this.endpoints.create({ workspaceId: admin.workspace.id, plan: admin.workspace.plan }, checked.value);
      return this.developers(req, {
        status: 201,
        notice: 'The endpoint was created.',
        secret: secret
          ? { label: 'Its signing secret', value: secret, note: <p>Check each delivery's <code>Chorus-Signature</code> with it (Chorus's docs/webhooks.md shows how).</p> }
          : null,
      });
    } catch (error) {
      if (error instanceof AppError && (error.code === 'invalid_request' || error.code === 'plan_required')) return refused(refusalOf(error.message, ['kind', 'url', 'events']));
      throw error;
    }
  }

  @Get('endpoints/:id')
  async endpoint(@Req() req: ChorusRequest, @Param('id') id: string, @Query('done') done: unknown): Promise<Page> {
    return this.endpointPage(req, id, { notice: typeof done === 'string' ? (NOTICES[done] ?? null) : null });
  }

  @Post('endpoints/:id')
  @HttpCode(303)
  async updateEndpoint(@Req() req: ChorusRequest, @Param('id') id: string, @Body() form: Form): Promise<Page | Redirect> {
    const admin = this.withApi(req);
    const events = ticked(form.events);
    const checked = await validateForm(UpdateEndpointDto, { events }, ['events']);
    if ('errors' in checked) return this.endpointPage(req, id, { status: 400, form: { values: {}, errors: checked.errors, events } });
    await this.endpoints.update(admin.workspace.id, id, { events: checked.value.events });
    return this.done('saved', `/endpoints/${id}`);
  }

  @Post('endpoints/:id/enable')
  @HttpCode(303)
  async enable(@Req() req: ChorusRequest, @Param('id') id: string): Promise<Redirect> {
    await this.endpoints.update(this.withApi(req).workspace.id, id, { enabled: true });
    return this.done('enabled', `/endpoints/${id}`);
  }

  @Post('endpoints/:id/disable')
  @HttpCode(303)
  async disable(@Req() req: ChorusRequest, @Param('id') id: string): Promise<Redirect> {
    await this.endpoints.update(this.withApi(req).workspace.id, id, { enabled: false });
    return this.done('disabled', `/endpoints/${id}`);
  }

  @Post('endpoints/:id/rotate')
  async rotate(@Req() req: ChorusRequest, @Param('id') id: string): Promise<Page> {
    const { secret } = await this.endpoints.rotateSecret(this.withApi(req).workspace.id, id);
    return this.endpointPage(req, id, { status: 200, secret, notice: 'The secret was rotated.' });
  }

  @Post('endpoints/:id/test')
  async test(@Req() req: ChorusRequest, @Param('id') id: string): Promise<Page> {
    const admin = this.withApi(req);
    const delivery = await this.tools.test({ workspaceId: admin.workspace.id, plan: admin.workspace.plan }, id);
    const attempt = delivery.attempts.at(-1);
    const outcome =
      delivery.status === 'delivered'
        ? `The test event arrived (${attempt?.status_code ?? 'ok'}, ${attempt?.duration_ms ?? 0} ms).`
        : `The test event did not arrive: ${attempt?.error?.replace(/_/g, ' ') ?? (attempt?.status_code ? `the answer was ${attempt.status_code}` : 'no answer')}.`;
    return this.endpointPage(req, id, { notice: outcome });
  }

  @Post('endpoints/:id/delete')
  @HttpCode(303)
  async remove(@Req() req: ChorusRequest, @Param('id') id: string, @Body() form: Form): Promise<Page | Redirect> {
    const admin = this.withApi(req);
    const endpoint = await this.endpoints.get(admin.workspace.id, id);
    if (form.confirm !== 'yes') {
      return this.confirm(req, {
        title: `Delete the endpoint ${endpoint.urlShown}?`,
        explanation: 'Nothing more is sent to it, and its deliveries and their attempts are deleted with it. This cannot be undone.',
        action: this.paths.admin(`/admin/developers/endpoints/${id}/delete`),
        button: 'Delete endpoint',
      });
    }
    await this.endpoints.remove(admin.workspace.id, id);
    return this.done('deleted');
  }

  @Get('endpoints/:id/deliveries')
  async deliveriesOf(@Req() req: ChorusRequest, @Param('id') id: string, @Query('offset') offset: unknown, @Query('done') done: unknown): Promise<Page> {
    const notice = typeof done === 'string' ? (NOTICES[done] ?? (/^recovered-\d+$/.test(done) ? `${done.slice(10)} failed deliveries will be sent again.` : null)) : null;
    return this.deliveriesPage(req, id, pageOffset(offset), notice, emptyForm());
  }

  @Post('endpoints/:id/recover')
  @HttpCode(303)
  async recover(@Req() req: ChorusRequest, @Param('id') id: string, @Body() form: Form): Promise<Page | Redirect> {
    const admin = this.withApi(req);
    const typed = text(form.since).trim();
    // A time written as people write it (2026-11-21 14:00) is UTC.
    const since = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2})?$/.test(typed) ? `${typed.replace(' ', 'T')}Z` : typed;
    const refused = (message: string) => this.deliveriesPage(req, id, 0, null, { values: { since: typed }, errors: { since: message } }, 400);
    if (!isTimestamp(since)) return refused('must be a date and time, such as 2026-11-21 14:00 (UTC)');
    try {
      const count = await this.tools.recover(admin.workspace.id, id, new Date(since));
      return this.done(`recovered-${count}`, `/endpoints/${id}/deliveries`);
    } catch (error) {
      if (error instanceof AppError && (error.code === 'invalid_request' || error.code === 'conflict')) return refused(error.message.replace(/^since: /, ''));
      throw error;
    }
  }

  @Post('deliveries/:id/retry')
  @HttpCode(303)
  async retry(@Req() req: ChorusRequest, @Param('id') id: string): Promise<Redirect> {
    const delivery = await this.deliveries.retry(this.withApi(req).workspace.id, id);
    const endpointId = delivery.endpoint_id;
    return this.done('retried', endpointId ? `/endpoints/${endpointId}/deliveries` : '');
  }

  /** The SSO secret is the public site's, so on every plan. */
  @Post('sso')
  async rotateSso(@Req() req: ChorusRequest): Promise<Page> {
    const secret = await this.sso.rotate(req.admin!.workspace.id);
    return this.developers(req, {
      secret: { label: 'Your SSO secret', value: secret, note: <p>Keep it on your server, like an API key. The secret before it works for 24 more hours.</p> },
    });
  }

  /** The member's workspace, when its plan has the API; a page saying which plan does, when not. */
  private withApi(req: ChorusRequest): AdminContext {
    const admin = req.admin!;
    if (!isPlan(admin.workspace.plan) || !PLANS[admin.workspace.plan].api) {
      throw new PageError(403, 'Not on this plan', `API keys and endpoints are on the ${API_PLAN} plan and above; this workspace is on ${admin.workspace.plan}.`);
    }
    return admin;
  }

  private done(what: string, path = ''): Redirect {
    return new Redirect(this.paths.admin(`/admin/developers${path}?done=${what}`));
  }

  private confirm(req: ChorusRequest, view: { title: string; explanation: string; action: string; button: string }): Page {
    return new Page(confirmPage(this.paths.frame(req), { ...view, fields: {}, cancel: this.paths.admin('/admin/developers'), danger: true }), PRIVATE);
  }

  private async developers(
    req: ChorusRequest,
    options: { status?: number; notice?: string | null; secret?: DevelopersView['secret']; endpointForm?: DevelopersView['endpointForm'] },
  ): Promise<Page> {
    const { workspace } = req.admin!;
    const hasApi = isPlan(workspace.plan) && PLANS[workspace.plan].api;
    const [keys, endpoints, ssoMadeAt] = await Promise.all([
      hasApi ? this.keys.listShown(workspace.id) : [],
      hasApi ? this.endpoints.list(workspace.id) : [],
      this.sso.madeAt(workspace.id),
    ]);
    const html = developersPage(this.paths.frame(req), {
      plan: workspace.plan,
      planNeeded: hasApi ? null : API_PLAN,
      keys,
      endpoints,
      endpointLimit: isPlan(workspace.plan) ? PLANS[workspace.plan].webhookEndpoints : 0,
      ssoMadeAt,
      endpointForm: options.endpointForm ?? { ...emptyForm({ kind: 'webhook' }), events: [] },
      notice: options.notice ?? null,
      secret: options.secret ?? null,
      publicExample: { site: this.links.publicUrl(''), workspace: workspace.slug },
    });
    return new Page(html, PRIVATE, options.status ?? 200);
  }

  private async endpointPage(
    req: ChorusRequest,
    id: string,
    options: { status?: number; notice?: string | null; secret?: string | null; form?: FormState & { events: string[] } },
  ): Promise<Page> {
    const endpoint = await this.endpoints.get(this.withApi(req).workspace.id, id);
    const html = endpointPage(this.paths.frame(req), {
      endpoint,
      form: options.form ?? { ...emptyForm(), events: endpoint.events },
      notice: options.notice ?? null,
      secret: options.secret ?? null,
    });
    return new Page(html, PRIVATE, options.status ?? 200);
  }

  private async deliveriesPage(req: ChorusRequest, id: string, offset: number, notice: string | null, recover: FormState, status = 200): Promise<Page> {
    const workspaceId = this.withApi(req).workspace.id;
    const endpoint = await this.endpoints.get(workspaceId, id);
    const page = await this.deliveries.listForEndpoint(workspaceId, id, toPage({ limit: String(PAGE), offset: String(offset) }));
    const link = (at: number) => this.paths.admin(`/admin/developers/endpoints/${id}/deliveries${at > 0 ? `?offset=${at}` : ''}`);
    const html = deliveriesPage(this.paths.frame(req), {
      endpoint,
      deliveries: page.data,
      next: page.has_more ? link(page.next_offset!) : null,
      prev: offset > 0 ? link(Math.max(0, offset - PAGE)) : null,
      notice,
      recover,
    });
    return new Page(html, PRIVATE, status);
  }
}
