import { existsSync } from 'node:fs';
import { SignJWT } from 'jose';
import { join } from 'node:path';
import { uniqueSlug } from './support/factories';
import { Client } from './support/http';
import { ROOT, runToEnd } from './support/processes';
import { startTestApp, TEST_ENCRYPTION_KEY, testDatabaseUrl, TestApp } from './support/test-app';

/** The operator's CLI, as built, against this run's database; its effects seen through the API. */
describe('chorus CLI', () => {
  let t: TestApp;
  const env = () => ({ DATABASE_URL: testDatabaseUrl(), ENCRYPTION_KEY: TEST_ENCRYPTION_KEY });

  const cli = (...args: string[]) => runToEnd('cli', args, env());

  /** Runs a --json command: stdout must be exactly one JSON object. */
  async function cliJson(...args: string[]) {
    const result = await runToEnd('cli', [...args, '--json'], env());
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    return JSON.parse(lines[0]);
  }

  beforeAll(async () => {
    if (!existsSync(join(ROOT, 'dist', 'src', 'cli.js'))) throw new Error('Build first: npm run build');
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('sets up a workspace whose key works, and changes plan, boards and keys as the API then shows', async () => {
    const slug = uniqueSlug('cli');
    const workspace = await cliJson('workspace', 'create', '--name', 'CLI Co', '--slug', slug, '--plan', 'pro');
    expect(workspace).toEqual({ id: expect.any(String), slug, plan: 'pro' });

    const member = await cliJson('member', 'add', '--workspace', slug, '--name', 'Mia Member', '--email', 'mia@cli.example');
    expect(member).toEqual({ id: expect.any(String) });
    const key = await cliJson('key', 'create', '--workspace', slug, '--member', 'MIA@cli.example');
    expect(key).toEqual({ id: expect.any(String), key: expect.stringMatching(/^chorus_key_[0-9A-Za-z]{40}$/) });

    const board = await cliJson(
      'board', 'create', '--workspace', slug, '--slug', 'next-up', '--name', 'Next up',
      '--description', 'What comes next', '--private', '--no-notify-voters',
    );
    expect(board).toEqual({ id: expect.any(String), slug: 'next-up' });
    const boardList = await cliJson('board', 'list', '--workspace', slug);
    expect(boardList.data).toEqual([
      { id: board.id, slug: 'next-up', name: 'Next up', public: false, notify_voters: false },
    ]);

    const api = new Client(t.baseUrl, key.key);
    const boards = await api.get('/api/v1/boards');
    expect(boards.status).toBe(200);
    expect(boards.body.data).toEqual([
      expect.objectContaining({ id: board.id, slug: 'next-up', description: 'What comes next', public: false }),
    ]);
    const post = await api.post('/api/v1/posts', { board: 'next-up', title: 'Made with a CLI key' });
    expect(post.body.data.author).toEqual({ name: 'Mia Member' });

    expect(await cliJson('workspace', 'set-plan', '--workspace', slug, '--plan', 'free')).toEqual({
      id: workspace.id,
      slug,
      plan: 'free',
    });
    expect((await api.get('/api/v1/boards')).status).toBe(403);
    await cliJson('workspace', 'set-plan', '--workspace', slug, '--plan', 'business');
    expect((await api.get('/api/v1/boards')).status).toBe(200);
    expect(await cliJson('workspace', 'set-moderation', '--workspace', slug, '--moderation', 'first')).toEqual({ slug, moderation: 'first' });

    const keys = await cliJson('key', 'list', '--workspace', slug);
    expect(keys.data).toEqual([expect.objectContaining({ id: key.id, revoked_at: null })]);
    expect(JSON.stringify(keys)).not.toContain(key.key);
    expect(await cliJson('key', 'revoke', '--id', key.id)).toEqual({ id: key.id, revoked: true });
    expect((await api.get('/api/v1/boards')).status).toBe(401);

    const workspaces = await cliJson('workspace', 'list');
    expect(workspaces.data).toContainEqual({ id: workspace.id, slug, name: 'CLI Co', plan: 'business' });
    const members = await cliJson('member', 'list', '--workspace', slug);
    expect(members.data).toEqual([{ id: member.id, name: 'Mia Member', email: 'mia@cli.example' }]);
  });

  it('creates webhook endpoints within the plan, lists them without secrets, and turns them off and on', async () => {
    const slug = uniqueSlug('hooks');
    await cliJson('workspace', 'create', '--name', 'Hooks', '--slug', slug, '--plan', 'pro');
    const withSwitch = { ...env(), WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' };
    const create = await runToEnd(
      'cli',
      ['endpoint', 'create', '--workspace', slug, '--kind', 'webhook', '--url', 'http://127.0.0.1:9/hook',
       '--events', 'post.created,comment.created', '--json'],
      withSwitch,
    );
    expect(create.code).toBe(0);
    const endpoint = JSON.parse(create.stdout);
    expect(endpoint).toEqual({ id: expect.any(String), secret: expect.stringMatching(/^whsec_[0-9A-Za-z]{32,}$/) });

    const list = await cliJson('endpoint', 'list', '--workspace', slug);
    expect(list.data).toEqual([
      expect.objectContaining({ id: endpoint.id, events: ['post.created', 'comment.created'], enabled: true }),
    ]);
    expect(JSON.stringify(list)).not.toContain(endpoint.secret);

    expect(await cliJson('endpoint', 'disable', '--id', endpoint.id)).toEqual({ id: endpoint.id, enabled: false });
    expect((await cliJson('endpoint', 'list', '--workspace', slug)).data[0]).toMatchObject({ enabled: false, disabled_reason: 'user' });
    expect(await cliJson('endpoint', 'enable', '--id', endpoint.id)).toEqual({ id: endpoint.id, enabled: true });

    // Without the development switch, a loopback target is refused; an unknown event type is a usage error.
    const refused = await runToEnd(
      'cli',
      ['endpoint', 'create', '--workspace', slug, '--kind', 'webhook', '--url', 'https://127.0.0.1/hook', '--events', 'post.created'],
      env(),
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/url: /);
    const badEvents = await cli('endpoint', 'create', '--workspace', slug, '--kind', 'webhook', '--url', 'https://x.example/', '--events', 'post.deleted');
    expect(badEvents.code).toBe(2);
    expect(badEvents.stderr).toMatch(/unknown event types post.deleted/);
  });

  it('adds and removes votes on behalf of people, as the API then shows', async () => {
    const slug = uniqueSlug('votes');
    await cliJson('workspace', 'create', '--name', 'Votes', '--slug', slug, '--plan', 'pro');
    await cliJson('member', 'add', '--workspace', slug, '--name', 'Vi Member', '--email', 'vi@votes.example');
    const { key } = await cliJson('key', 'create', '--workspace', slug, '--member', 'vi@votes.example');
    await cliJson('board', 'create', '--workspace', slug, '--slug', 'ideas', '--name', 'Ideas');
    const api = new Client(t.baseUrl, key);
    const post = (await api.post('/api/v1/posts', { board: 'ideas', title: 'Voted from the CLI' })).body.data;

    const added = await cliJson('vote', 'add', '--workspace', slug, '--post', String(post.id), '--name', 'Phone Caller', '--email', 'caller@votes.example');
    expect(added).toEqual({ post_id: post.id, votes: 2, added: true });
    const twice = await cliJson('vote', 'add', '--workspace', slug, '--post', String(post.id), '--email', 'CALLER@votes.example');
    expect(twice).toEqual({ post_id: post.id, votes: 2, added: false });
    expect((await api.get(`/api/v1/posts/${post.id}/votes`)).body.data).toEqual([{ name: 'Phone Caller' }, { name: 'Vi Member' }]);

    expect(await cliJson('vote', 'remove', '--workspace', slug, '--post', String(post.id), '--email', 'caller@votes.example')).toEqual({
      post_id: post.id,
      votes: 1,
      removed: true,
    });
    expect((await api.get(`/api/v1/posts/${post.id}`)).body.data.votes).toBe(1);

    const noVoter = await cli('vote', 'add', '--workspace', slug, '--post', String(post.id));
    expect(noVoter.code).toBe(2);
    expect(noVoter.stderr).toMatch(/--email or --name is required/);
    const badPost = await cli('vote', 'add', '--workspace', slug, '--post', 'x1', '--name', 'A');
    expect(badPost.code).toBe(2);
    const otherWorkspace = await cli('vote', 'add', '--workspace', slug, '--post', '999999999', '--name', 'A');
    expect(otherWorkspace.code).toBe(1);
    expect(otherWorkspace.stderr).toMatch(/No such post/);
  });

  it('makes an SSO secret, printed once, that signs visitors in; a rotation keeps the one before for 24 hours', async () => {
    const slug = uniqueSlug('sso');
    const workspace = await cliJson('workspace', 'create', '--name', 'SSO Co', '--slug', slug, '--plan', 'free');
    const first = await cliJson('sso', 'rotate', '--workspace', slug);
    expect(first).toEqual({ secret: expect.stringMatching(/^sso_[0-9A-Za-z]{40}$/) });
    const second = await cliJson('sso', 'rotate', '--workspace', slug);
    expect(second.secret).not.toBe(first.secret);
    for (const { secret } of [first, second]) {
      const token = await new SignJWT({ email: 'cli-sso@example.com', name: 'From the CLI' })
        .setProtectedHeader({ alg: 'HS256' })
        .setExpirationTime('5m')
        .sign(new TextEncoder().encode(secret));
      const answer = await fetch(`${t.baseUrl}/${slug}/sso?token=${token}`, { redirect: 'manual' });
      expect(answer.status).toBe(303);
    }
    const [{ secret_sealed }] = await t.db.query(`SELECT secret_sealed FROM sso_secrets WHERE workspace_id = $1`, [workspace.id]);
    expect(secret_sealed).not.toContain(second.secret.slice(4));
    const text = await cli('sso', 'rotate', '--workspace', slug);
    expect(text.stdout).toMatch(/shown once[\s\S]*\nsso_[0-9A-Za-z]{40}\n$/);
  });

  it('explains refusals on stderr with a non-zero exit and nothing on stdout', async () => {
    const slug = uniqueSlug('dup');
    await cliJson('workspace', 'create', '--name', 'Dup', '--slug', slug, '--plan', 'pro');
    const duplicate = await runToEnd('cli', ['workspace', 'create', '--name', 'Dup', '--slug', slug, '--plan', 'pro', '--json'], env());
    expect(duplicate.code).toBe(1);
    expect(duplicate.stderr).toMatch(/already exists/);
    expect(duplicate.stdout).toBe('');

    const badPlan = await cli('workspace', 'create', '--name', 'X', '--slug', uniqueSlug('x'), '--plan', 'gold');
    expect(badPlan.code).toBe(2);
    expect(badPlan.stdout).toBe('');
    expect(badPlan.stderr).toMatch(/--plan must be one of free, pro, business/);

    const missing = await cli('key', 'create', '--workspace', slug);
    expect(missing.code).toBe(2);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toMatch(/--member is required/);

    const unknownMember = await cli('key', 'create', '--workspace', slug, '--member', 'nobody@x.example');
    expect(unknownMember.code).toBe(1);
    expect(unknownMember.stdout).toBe('');
    expect(unknownMember.stderr).toMatch(/No such member/);

    const noWorkspace = await cli('board', 'list', '--workspace', 'no-such-workspace');
    expect(noWorkspace.code).toBe(1);
    expect(noWorkspace.stdout).toBe('');
    expect(noWorkspace.stderr).toBe('error: No such workspace "no-such-workspace".\n');

    const reserved = await cli('workspace', 'create', '--name', 'Admin', '--slug', 'admin', '--plan', 'pro');
    expect(reserved.code).toBe(1);
    expect(reserved.stderr).toMatch(/slug: must not be one of the service's own paths: admin, api, assets, docs, email, embed, healthz, metrics, readyz/);

    const unknown = await cli('frobnicate');
    expect(unknown.code).toBe(2);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toMatch(/Usage: chorus/);
  });
});
