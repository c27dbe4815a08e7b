"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.seedDemo = seedDemo;
exports.seedAndAnnounceDemo = seedAndAnnounceDemo;
const node_fs_1 = require("node:fs");
const node_path_1 = require("node:path");
const api_keys_service_1 = require("../auth/api-keys.service");
const boards_service_1 = require("../boards/boards.service");
const comments_service_1 = require("../comments/comments.service");
const posts_service_1 = require("../posts/posts.service");
const workspaces_service_1 = require("../workspaces/workspaces.service");
const DEMO_POSTS = [
    { title: 'Dark mode for the dashboard', body: 'Our team works late. A dark theme would be easier on the eyes.', category: 'feature', votes: 4, status: 'planned' },
    { title: 'Export posts to CSV', body: 'We report to management monthly and copy posts by hand today.', category: 'feature', votes: 2, status: 'open' },
    { title: 'Search ignores accents', body: 'Searching "cafe" does not find "café".', category: 'bug', votes: 1, status: 'in_progress' },
    { title: 'Faster board loading', body: 'Boards with many posts take a while to open.', category: 'improvement', votes: 3, status: 'open' },
];
const VOTERS = [
    { name: 'Ada Lovelace', email: 'ada@example.com' },
    { name: 'Grace Hopper', email: 'grace@example.com' },
    { name: 'Alan Turing', email: 'alan@example.com' },
    { name: 'Edsger Dijkstra', email: null },
];
async function seedDemo(app) {
    const workspaces = app.get(workspaces_service_1.WorkspacesService);
    if ((await workspaces.list()).length > 0)
        return null;
    const workspace = await workspaces.create({ name: 'Demo', slug: 'demo', plan: 'pro' });
    const admin = await workspaces.addPerson(workspace.id, { kind: 'member', name: 'Demo Admin', email: 'admin@demo.example' });
    const boards = app.get(boards_service_1.BoardsService);
    await boards.create('demo', { slug: 'feedback', name: 'Feedback', description: 'Ideas and bugs from our users.' });
    await boards.create('demo', { slug: 'internal', name: 'Internal', description: null, public: false });
    const voters = [];
    for (const voter of VOTERS)
        voters.push(await workspaces.addPerson(workspace.id, { kind: 'user', ...voter }));
    const actor = { workspaceId: workspace.id, workspaceSlug: workspace.slug, personId: admin.id };
    const posts = app.get(posts_service_1.PostsService);
    const comments = app.get(comments_service_1.CommentsService);
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
    const { key } = await app.get(api_keys_service_1.ApiKeysService).create('demo', 'admin@demo.example');
    return key;
}
const demoKeyFile = (config) => (0, node_path_1.join)(config.dataDir, 'demo-key.txt');
async function seedAndAnnounceDemo(app, config) {
    const created = await seedDemo(app);
    if (created)
        (0, node_fs_1.writeFileSync)(demoKeyFile(config), `${created}\n`, { mode: 0o600 });
    const key = created ?? ((0, node_fs_1.existsSync)(demoKeyFile(config)) ? (0, node_fs_1.readFileSync)(demoKeyFile(config), 'utf8').trim() : null);
    if (!key || !(await app.get(api_keys_service_1.ApiKeysService).authenticate(key)))
        return;
    const lines = [
        '',
        created ? 'Created the demo workspace "demo" (plan pro) with a key:' : 'Demo workspace "demo", key:',
        `  ${key}`,
        'Try it:',
        `  curl -H "Authorization: Bearer ${key}" ${config.baseUrl}/api/v1/boards`,
        '',
    ];
    process.stdout.write(lines.join('\n') + '\n');
}
//# sourceMappingURL=demo-seed.js.map