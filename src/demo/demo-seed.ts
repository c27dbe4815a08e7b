import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { INestApplicationContext } from '@nestjs/common';
import { ApiKeysService } from '../auth/api-keys.service';
import { BoardsService } from '../boards/boards.service';
import { CommentsService } from '../comments/comments.service';
import type { AppConfig } from '../config/app-config';
import { PostsService } from '../posts/posts.service';
import { memberSignInLink } from '../web/shared/sign-in.service';
import { WorkspacesService } from '../workspaces/workspaces.service';

const DEMO_POSTS = [
  { title: 'Dark mode for the dashboard', body: 'Our team works late. A dark theme would be easier on the eyes.', category: 'feature', votes: 4, status: 'planned' },
  { title: 'Export posts to CSV', body: 'We report to management monthly and copy posts by hand today.', category: 'feature', votes: 2, status: 'open' },
  { title: 'Search ignores accents', body: 'Searching "cafe" does not find "café".', category: 'bug', votes: 1, status: 'in_progress' },
  { title: 'Faster board loading', body: 'Boards with many posts take a while to open.', category: 'improvement', votes: 3, status: 'open' },
] as const;

const VOTERS = [
  { name: 'Ada Lovelace', email: 'ada@example.com' },
  { name: 'Grace Hopper', email: 'grace@example.com' },
  { name: 'Alan Turing', email: 'alan@example.com' },
  { name: 'Edsger Dijkstra', email: null },
];

/**
 * First start on an empty embedded database: a demo workspace with a public and a private
 * board, a few posts with votes and comments, and a key. Returns the key, or null when the
 * database already had workspaces.
 */
export async function seedDemo(app: INestApplicationContext): Promise<string | null> {
  const workspaces = app.get(WorkspacesService);
  if ((await workspaces.list()).length > 0) return null;

  const workspace = await workspaces.create({ name: 'Demo', slug: 'demo', plan: 'pro' });
  const admin = await workspaces.addPerson(workspace.id, { kind: 'member', name: 'Demo Admin', email: 'admin@demo.example' });
  const boards = app.get(BoardsService);
  await boards.create('demo', { slug: 'feedback', name: 'Feedback', description: 'Ideas and bugs from our users.' });
  await boards.create('demo', { slug: 'internal', name: 'Internal', description: null, public: false });

  const voters = [];
  for (const voter of VOTERS) voters.push(await workspaces.addPerson(workspace.id, { kind: 'user', ...voter }));

  const actor = { workspaceId: workspace.id, workspaceSlug: workspace.slug, personId: admin.id };
  const posts = app.get(PostsService);
  const comments = app.get(CommentsService);
  for (const [index, demo] of DEMO_POSTS.entries()) {
    const author = voters[index % voters.length];
    const post = await posts.create(actor, {
      board: index === 3 ? 'internal' : 'feedback',
      title: demo.title,
      body: demo.body,
      category: demo.category,
      author: { name: author.name, email: author.email ?? undefined },
    });
    for (const voter of voters.filter((v) => v.id !== author.id).slice(0, demo.votes - 1)) {
      await posts.vote(actor, post.id, voter.id);
    }
    await comments.create(actor, post.id, { body: 'Same here, this would help us a lot.', authorId: voters[(index + 1) % voters.length].id });
    if (demo.status !== 'open') {
      await posts.setStatus(actor, post.id, demo.status);
      await comments.create(actor, post.id, { body: 'Thanks! We are on it.' });
    }
  }
  const { key } = await app.get(ApiKeysService).create('demo', 'admin@demo.example');
  return key;
}

const demoKeyFile = (config: AppConfig) => join(config.dataDir, 'demo-key.txt');

async function demoSignInLink(app: INestApplicationContext): Promise<string> {
  const workspace = await app.get(WorkspacesService).findBySlug('demo');
  return memberSignInLink(app, workspace.id, 'admin@demo.example');
}

/**
 * Seeds on first start and prints how to try the API. The demo key is kept in DATA_DIR (the
 * embedded, single-machine mode only) so that a restart can print the same `curl` line.
 */
export async function seedAndAnnounceDemo(app: INestApplicationContext, config: AppConfig): Promise<void> {
  const created = await seedDemo(app);
  if (created) writeFileSync(demoKeyFile(config), `${created}\n`, { mode: 0o600 });
  const key = created ?? (existsSync(demoKeyFile(config)) ? readFileSync(demoKeyFile(config), 'utf8').trim() : null);
  if (!key || !(await app.get(ApiKeysService).authenticate(key))) return;
  const lines = [
    '',
    created ? 'Created the demo workspace "demo" (plan pro) with a key:' : 'Demo workspace "demo", key:',
    `  ${key}`,
    'Try it:',
    `  curl -H "Authorization: Bearer ${key}" ${config.baseUrl}/api/v1/boards`,
    'Its public board, where people vote, post and comment:',
    `  ${config.publicBaseUrl}/demo/feedback`,
    'Its dashboard, for the team (this link signs in as the demo admin, once, within 15 minutes):',
    `  ${await demoSignInLink(app)}`,
    '',
  ];
  process.stdout.write(lines.join('\n') + '\n');
}
