import { Body, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import { ChangelogService, EntryPatch } from '../../changelog/changelog.service';
import type { ChangelogEntryResponse } from '../../changelog/changelog.mapper';
import { CreateEntryDto } from '../../changelog/dto/entry.dto';
import { EntryIdPipe } from '../../changelog/entry-id.pipe';
import { AppError } from '../../common/app-error';
import type { ChorusRequest } from '../../common/request-context';
import { validateForm } from '../../common/validation';
import { emptyForm, FormState, refusalOf } from '../shared/forms';
import { PageController } from '../shared/page-controller';
import { Page, Redirect } from '../shared/page-response';
import { memberActor } from './admin-context';
import { AdminGuard } from './admin.guard';
import { AdminPaths } from './admin-paths';
import { adminChangelogPage, adminEntryPage } from './views/changelog';

type Form = Record<string, string | undefined>;
const PRIVATE = { public: false as const };
const FIELDS = ['title', 'body', 'type', 'post_ids', 'publish_at'];
/** `datetime-local`'s value, read as UTC (the page says so). */
const LOCAL_TIME = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2})?)$/;

const NOTICES: Record<string, string> = {
  draft: 'The draft was saved.',
  scheduled: 'The entry was scheduled.',
  published: 'The entry was published.',
  saved: 'The entry was saved.',
};

interface EntryInput {
  title: string;
  body: string;
  type: CreateEntryDto['type'];
  post_ids: number[];
  /** For "Schedule": the time asked for. */
  publish_at: Date | null;
}

/** The form's fields as typed (never its token), to show again with its errors. */
const typed = (form: Form) => Object.fromEntries(FIELDS.map((f) => [f, typeof form[f] === 'string' ? form[f]! : '']));

/**
 * The team's changelog: every entry with its state, "New entry" (save a draft, publish now, or
 * schedule at a time in UTC), and each entry's page that edits it, through the service the API
 * uses (its rules, its event, its emails).
 */
@PageController('admin/changelog', AdminGuard)
export class AdminChangelogController {
  constructor(
    private readonly changelog: ChangelogService,
    private readonly paths: AdminPaths,
  ) {}

  @Get()
  async list(@Req() req: ChorusRequest, @Query('done') done: unknown): Promise<Page> {
    return this.listPage(req, emptyForm({ type: 'new' }), typeof done === 'string' ? (NOTICES[done] ?? null) : null);
  }

  @Post()
  @HttpCode(303)
  async create(@Req() req: ChorusRequest, @Body() form: Form): Promise<Page | Redirect> {
    const action = form.action === 'publish' || form.action === 'schedule' ? form.action : 'draft';
    const checked = await this.read(form, action === 'schedule');
    const refused = (errors: Record<string, string>) => this.listPage(req, { values: typed(form), errors }, null, 400);
    if ('errors' in checked) return refused(checked.errors);
    const input = checked.value;
    try {
      const entry = await this.changelog.create(memberActor(req.admin!), {
        title: input.title,
        body: input.body,
        type: input.type,
        post_ids: input.post_ids,
        publish_at: action === 'publish' ? new Date() : action === 'schedule' ? input.publish_at! : undefined,
      });
      return new Redirect(this.paths.admin(`/admin/changelog/${entry.id}?done=${doneOf(entry)}`));
    } catch (error) {
      if (error instanceof AppError && error.code === 'invalid_request') return refused(refusalOf(error.message, FIELDS));
      throw error;
    }
  }

  @Get(':id')
  async entry(@Req() req: ChorusRequest, @Param('id', EntryIdPipe) id: number, @Query('done') done: unknown): Promise<Page> {
    const entry = await this.changelog.get(memberActor(req.admin!), id);
    return this.entryPage(req, entry, formOf(entry), typeof done === 'string' ? (NOTICES[done] ?? null) : null);
  }

  @Post(':id')
  @HttpCode(303)
  async update(@Req() req: ChorusRequest, @Param('id', EntryIdPipe) id: number, @Body() form: Form): Promise<Page | Redirect> {
    const actor = memberActor(req.admin!);
    const entry = await this.changelog.get(actor, id);
    const action = entry.state === 'published' ? 'save' : form.action === 'publish' || form.action === 'schedule' ? form.action : 'draft';
    const checked = await this.read(form, action === 'schedule');
    const refused = (errors: Record<string, string>) => this.entryPage(req, entry, { values: typed(form), errors }, null, 400);
    if ('errors' in checked) return refused(checked.errors);
    const input = checked.value;
    const patch: EntryPatch = { title: input.title, body: input.body, type: input.type, post_ids: input.post_ids };
    if (action === 'draft') patch.publish_at = null;
    if (action === 'schedule') patch.publish_at = input.publish_at;
    try {
      let saved = await this.changelog.update(actor, id, patch);
      if (action === 'publish') saved = await this.changelog.publish(actor, id);
      return new Redirect(this.paths.admin(`/admin/changelog/${id}?done=${action === 'save' ? 'saved' : doneOf(saved)}`));
    } catch (error) {
      if (error instanceof AppError && error.code === 'invalid_request') return refused(refusalOf(error.message, FIELDS));
      throw error;
    }
  }

  /** The form checked with the API's rules, and its "Linked posts" and "Publish at" read as the page explains them. */
  private async read(form: Form, scheduling: boolean): Promise<{ value: EntryInput } | { errors: Record<string, string> }> {
    const errors: Record<string, string> = {};
    // "Linked posts" is typed as numbers separated by commas; read so, they meet the API's own rules (how many, which).
    const parts = (form.post_ids ?? '').split(/[\s,]+/).filter(Boolean);
    const readable = parts.every((part) => /^#?[1-9]\d{0,15}$/.test(part));
    const postIds = readable ? [...new Set(parts.map((part) => Number(part.replace('#', ''))))] : undefined;
    const checked = await validateForm(
      CreateEntryDto,
      { title: form.title, body: form.body ?? '', type: form.type, post_ids: postIds },
      ['title', 'body', 'type', 'post_ids'],
    );
    if ('errors' in checked) Object.assign(errors, checked.errors);
    if (!readable) errors.post_ids = 'must be post ids (numbers), separated by commas';
    let publishAt: Date | null = null;
    if (scheduling) {
      const m = LOCAL_TIME.exec((form.publish_at ?? '').trim());
      const at = m ? new Date(`${m[1]}T${m[2]}Z`) : null;
      if (!at || Number.isNaN(at.getTime())) errors.publish_at = 'must be a date and time in UTC, such as 2026-12-01T09:00, to schedule';
      else publishAt = at;
    }
    if (Object.keys(errors).length > 0 || 'errors' in checked) return { errors };
    return {
      value: {
        title: checked.value.title,
        body: checked.value.body ?? '',
        type: checked.value.type,
        post_ids: checked.value.post_ids ?? [],
        publish_at: publishAt,
      },
    };
  }

  private async listPage(req: ChorusRequest, form: FormState, notice: string | null, status = 200): Promise<Page> {
    const entries: ChangelogEntryResponse[] = [];
    for (let offset: number | null = 0; offset !== null && entries.length < 500; ) {
      const page = await this.changelog.list(memberActor(req.admin!), { limit: 100, offset });
      entries.push(...page.data);
      offset = page.next_offset;
    }
    return new Page(adminChangelogPage(this.paths.frame(req), { entries, form, notice }), PRIVATE, status);
  }

  private entryPage(req: ChorusRequest, entry: ChangelogEntryResponse, form: FormState, notice: string | null, status = 200): Page {
    return new Page(adminEntryPage(this.paths.frame(req), { entry, form, notice }), PRIVATE, status);
  }
}

const doneOf = (entry: ChangelogEntryResponse) => (entry.state === 'published' ? 'published' : entry.state === 'scheduled' ? 'scheduled' : 'draft');

/** An entry's fields as its form shows them; "Publish at" in UTC, to the minute. */
function formOf(entry: ChangelogEntryResponse): FormState {
  return emptyForm({
    title: entry.title,
    body: entry.body,
    type: entry.type,
    post_ids: entry.posts.map((post) => post.id).join(', '),
    publish_at: entry.publish_at ? entry.publish_at.slice(0, 16) : '',
  });
}
