"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
const node_crypto_1 = require("node:crypto");
const node_perf_hooks_1 = require("node:perf_hooks");
const pg_1 = require("pg");
const support_1 = require("./support");
const typeorm_1 = require("typeorm");
const api_keys_service_1 = require("../../src/auth/api-keys.service");
const boards_service_1 = require("../../src/boards/boards.service");
const app_1 = require("../../src/app");
const app_config_1 = require("../../src/config/app-config");
const posts_service_1 = require("../../src/posts/posts.service");
const workspaces_service_1 = require("../../src/workspaces/workspaces.service");
const DB_NAME = 'chorus_bench';
const TOTAL = Number(process.env.BENCH_POSTS ?? 1_000_000);
const OTHERS = 40;
const N = Math.floor(TOTAL / 5) * 3 + Math.min(TOTAL % 5, 2);
const withDb = (url, db) => Object.assign(new URL(url), { pathname: `/${db}` }).toString();
const RARE_SHORT = 'ux';
const ELSEWHERE = 'kubernetes';
const SPLIT = ['quarterly', 'spreadsheet', 'reconciliation'];
const REQUESTS = 50;
const WARMUP = 5;
const RARE_WORD = 'zeppelin';
const COMMON_WORDS = 'dashboard export';
const WORDS = `please would love dashboard could option export when users should team page
  settings email report filter search mobile slack notification integration api webhook login sso
  dark mode view list board status roadmap changelog comment reply vote chart calendar sync import
  csv user permission role billing invoice slow error crash button profile password reset upload
  file image customer project task label tag sort order grid table column row default custom
  field template theme color font language translation timezone date format keyboard shortcut link
  share public private access admin workspace account subscription plan trial limit quota
  performance loading browser firefox safari chrome android iphone tablet offline backup restore
  history audit log security privacy gdpr delete archive merge duplicate bulk edit undo draft
  preview print pdf markdown editor embed widget analytics metrics goal priority deadline reminder
  alert digest weekly daily zapier jira github salesforce hubspot intercom zendesk teams discord`
    .split(/\s+/)
    .filter(Boolean);
const BOARDS = ['ideas', 'bugs', 'integrations', 'mobile', 'internal'];
const CASES = [
    { name: 'a new', query: {}, expect: ['posts_new_all_idx'] },
    { name: 'b top', query: { sort: 'top' }, expect: ['posts_top_all_idx'] },
    { name: 'c board new', query: { board: 'integrations' }, expect: ['posts_new_board_idx'] },
    { name: 'd board+status top', query: { board: 'bugs', status: 'planned', sort: 'top' }, expect: ['posts_top_board_status_idx'] },
    { name: 'e status new', query: { status: 'in_progress' }, expect: ['posts_new_status_idx'] },
    { name: 'f q one rare word', query: { q: RARE_WORD }, expect: ['posts_search_trgm_idx'] },
    { name: 'g q 2 common', query: { q: COMMON_WORDS }, expect: [] },
    { name: 'h offset 10000', query: { offset: '10000' }, expect: ['posts_new_all_idx'] },
    { name: 'i q rare 2-letter', query: { q: RARE_SHORT }, expect: ['posts_search_short_idx'] },
    { name: 'j q 3 words title+body', query: { q: SPLIT.join(' ') }, expect: ['posts_search_trgm_idx'] },
    { name: 'k q common elsewhere', query: { q: ELSEWHERE }, expect: ['posts_search_trgm_idx'] },
    { name: 'l q no match', query: { q: 'qzxjvw' }, expect: ['posts_search_trgm_idx'] },
    { name: 'm q 3-letter prefix', query: { q: 'das' }, expect: [] },
    { name: 'n q rare 3-letter prefix', query: { q: 'zep' }, expect: ['posts_search_trgm_idx'] },
];
const rnd = (expr, salt) => `((hashint8extended(${expr}, ${salt}) & 2147483647)::float8 / 2147483648)`;
const words = (count, salt) => `(SELECT string_agg(($1::text[])[1 + floor(array_length($1::text[], 1) * power(${rnd('g * 64 + i', salt)}, 1.6))::int], ' ')
      FROM generate_series(1, ${count}) i)`;
const INSERT_POSTS = `
  INSERT INTO posts (workspace_id, id, board_id, title, body, category, status, votes, comments_count,
                     pinned, merged_into_id, author_id, created_at, updated_at)
  SELECT ws, g, boards[CASE WHEN r1 < .40 THEN 1 WHEN r1 < .65 THEN 2 WHEN r1 < .80 THEN 3 WHEN r1 < .92 THEN 4 ELSE 5 END],
         CASE WHEN mine AND r7 < .0005 THEN '${SPLIT[0][0].toUpperCase() + SPLIT[0].slice(1)} ' || lower(title) ELSE title END,
         body || CASE WHEN mine AND ${rnd('g', 8)} < .001 THEN ' ${RARE_WORD}' ELSE '' END
              || CASE WHEN mine AND r7 < .0005 THEN ' ${SPLIT.slice(1).join(' ')}' ELSE '' END
              || CASE WHEN mine AND ${rnd('g', 10)} < .0005 THEN ' ${RARE_SHORT.toUpperCase()} ' ELSE '' END
              || CASE WHEN ${rnd('g', 11)} < (CASE WHEN mine THEN .0001 ELSE .3 END) THEN ' ${ELSEWHERE}' ELSE '' END,
         CASE WHEN r4 < .6 THEN 'feature' WHEN r4 < .85 THEN 'bug' ELSE 'improvement' END,
         CASE WHEN merged IS NOT NULL THEN 'closed' WHEN r2 < .50 THEN 'open' WHEN r2 < .65 THEN 'planned'
              WHEN r2 < .75 THEN 'in_progress' WHEN r2 < .90 THEN 'done' ELSE 'closed' END,
         1 + floor(power(r3, 6) * 2000)::int,  -- ~28% have 1 vote: many ties
         floor(power(r4, 3) * 20)::int, r6 < .0005, merged, authors[1 + (g / 5) % array_length(authors, 1)],
         created, least(now(), created + r6 * interval '30 days')
    FROM (SELECT g, ws, mine, boards, authors, r1, r2, r3, r4, r6, r7,
                 upper(left(t, 1)) || substr(t, 2) AS title, b || '.' AS body,
                 -- 2% of bench's posts are merged into an earlier post of bench
                 CASE WHEN mine AND (g / 5) % 50 = 3 AND g > 5 * 8 THEN g - 5 * (1 + g % 7) END AS merged,
                 -- two years, roughly in id order, to the minute; every 100th on the hour: ties
                 date_trunc(CASE WHEN g % 100 = 0 THEN 'hour' ELSE 'minute' END,
                   least(now(), now() - interval '2 years' + (g::float8 / $2) * interval '2 years'
                                + (r5 - .5) * interval '6 hours')) AS created
            FROM (SELECT g, ${words('3 + (g % 6)::int', 7)} AS t, ${words('12 + (g % 29)::int', 9)} AS b,
                         w.ws, w.idx = 0 AS mine, w.boards, w.authors,
                         ${rnd('g', 1)} AS r1, ${rnd('g', 2)} AS r2, ${rnd('g', 3)} AS r3,
                         ${rnd('g', 4)} AS r4, ${rnd('g', 5)} AS r5, ${rnd('g', 6)} AS r6, ${rnd('g', 12)} AS r7
                    FROM generate_series($3::bigint, $4::bigint) g
                    JOIN bench_ws w ON w.idx = CASE WHEN g % 5 < 3 THEN 0 ELSE 1 + (g / 5) % ${OTHERS} END) s) p`;
async function main() {
    const admin = new pg_1.Client({ connectionString: support_1.SERVER_URL });
    await admin.connect();
    const dbUrl = withDb(support_1.SERVER_URL, DB_NAME);
    const exists = (await admin.query(`SELECT 1 FROM pg_database WHERE datname = $1`, [DB_NAME])).rowCount === 1;
    let seeded = false;
    if (exists && support_1.KEEP) {
        const probe = new pg_1.Client({ connectionString: dbUrl });
        await probe.connect();
        seeded = await probe
            .query(`SELECT count(*)::int AS n FROM posts p JOIN workspaces w ON w.id = p.workspace_id WHERE w.slug = 'bench'`)
            .then((r) => r.rows[0].n === N, () => false);
        await probe.end();
    }
    if (!seeded) {
        await admin.query(`DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`);
        await admin.query(`CREATE DATABASE ${DB_NAME}`);
    }
    (0, support_1.log)(`database ${DB_NAME}: ${seeded ? `reused (already holds ${N} posts)` : 'created'}`);
    const config = (0, app_config_1.loadConfig)({
        DATABASE_URL: dbUrl,
        BASE_URL: 'https://chorus.bench',
        RUN_WORKER: 'false',
        RATE_LIMIT_WINDOW_MS: '1000',
        LOG_LEVEL: 'error',
        ENCRYPTION_KEY: (0, node_crypto_1.randomBytes)(32).toString('hex'),
    });
    const app = await (0, app_1.createApp)(config, { url: dbUrl, embedded: false, close: async () => { } });
    await app.listen(0, '127.0.0.1');
    const baseUrl = `http://127.0.0.1:${app.getHttpServer().address().port}`;
    const dataSource = app.get(typeorm_1.DataSource);
    const workspaces = app.get(workspaces_service_1.WorkspacesService);
    const setUp = async (slug, people) => {
        const ws = await workspaces.create({ name: `Bench ${slug}`, slug, plan: 'business' });
        await workspaces.addPerson(ws.id, { kind: 'member', name: 'Olive Owner', email: `owner@${slug}.example` });
        for (const board of BOARDS)
            await app.get(boards_service_1.BoardsService).create(slug, { slug: board, name: board, public: board !== 'internal' });
        await dataSource.query(`INSERT INTO people (workspace_id, kind, name, email)
       SELECT $1, 'user', 'User ' || i, 'user' || i || '@' || $2 || '.example' FROM generate_series(1, $3) i`, [ws.id, slug, people]);
    };
    const ids = async (slug) => {
        const [row] = await dataSource.query(`SELECT w.id, (SELECT array_agg(id ORDER BY array_position($2::text[], slug)) FROM boards WHERE workspace_id = w.id) AS boards,
              (SELECT array_agg(id) FROM people WHERE workspace_id = w.id) AS authors,
              (SELECT id FROM people WHERE workspace_id = w.id AND kind = 'member') AS member
         FROM workspaces w WHERE w.slug = $1`, [slug, BOARDS]);
        return row;
    };
    const db = new pg_1.Client({ connectionString: dbUrl });
    await db.connect();
    if (!seeded) {
        await setUp('bench', 500);
        const others = Array.from({ length: OTHERS }, (_, i) => `other-${String(i + 1).padStart(2, '0')}`);
        for (const slug of others)
            await setUp(slug, 20);
        await db.query(`CREATE TABLE bench_ws (idx int PRIMARY KEY, ws uuid, boards uuid[], authors uuid[])`);
        for (const [idx, slug] of ['bench', ...others].entries()) {
            const w = await ids(slug);
            await db.query(`INSERT INTO bench_ws VALUES ($1, $2, $3, $4)`, [idx, w.id, w.boards, w.authors]);
        }
        const total = TOTAL;
        const started = node_perf_hooks_1.performance.now();
        await db.query(`SET maintenance_work_mem = '1GB'; SET max_parallel_maintenance_workers = 2; SET synchronous_commit = off`);
        const { rows: indexes } = await db.query(`SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'posts' AND indexname <> 'posts_pkey'`);
        for (const { indexname } of indexes)
            await db.query(`DROP INDEX ${indexname}`);
        const chunk = Math.ceil(total / 4);
        for (let from = 1; from <= total; from += chunk) {
            const to = Math.min(total, from + chunk - 1);
            await db.query(INSERT_POSTS, [WORDS, total, from, to]);
            (0, support_1.log)(`  posts ${from}..${to} inserted (${((node_perf_hooks_1.performance.now() - started) / 1000).toFixed(1)} s)`);
        }
        for (const { indexname, indexdef } of indexes) {
            const t = node_perf_hooks_1.performance.now();
            await db.query(indexdef);
            (0, support_1.log)(`  ${indexname} built in ${((node_perf_hooks_1.performance.now() - t) / 1000).toFixed(1)} s`);
        }
        await db.query(`SELECT setval('posts_id_seq', (SELECT max(id) FROM posts))`);
        await db.query(`DROP TABLE bench_ws`);
        await db.query(`VACUUM ANALYZE posts`);
        await db.query(`ANALYZE people, boards, workspaces`);
        (0, support_1.log)(`seeded ${total} posts (${N} in bench + ${total - N} in ${OTHERS} others) in ${((node_perf_hooks_1.performance.now() - started) / 1000).toFixed(1)} s`);
    }
    const stats = await db.query(`SELECT CASE WHEN w.slug = 'bench' THEN 'bench' ELSE '40 others' END AS slug, count(*)::int AS posts, count(*) FILTER (WHERE p.body ILIKE '%${RARE_WORD}%')::int AS rare,
            count(*) FILTER (WHERE p.body ILIKE '%${ELSEWHERE}%')::int AS elsewhere,
            count(*) FILTER (WHERE p.body ILIKE '% ${RARE_SHORT} %')::int AS short,
            count(*) FILTER (WHERE p.merged_into_id IS NOT NULL)::int AS merged,
            count(DISTINCT p.created_at)::int AS distinct_created, count(DISTINCT p.votes)::int AS distinct_votes
       FROM posts p JOIN workspaces w ON w.id = p.workspace_id GROUP BY 1 ORDER BY 1`);
    console.table(stats.rows);
    const size = await db.query(`SELECT pg_size_pretty(pg_table_size('posts')) AS t, pg_size_pretty(pg_indexes_size('posts')) AS i`);
    (0, support_1.log)(`posts: table ${size.rows[0].t}, indexes ${size.rows[0].i}`);
    const main = await ids('bench');
    const actor = { workspaceId: main.id, workspaceSlug: 'bench', personId: main.member };
    const { key } = await app.get(api_keys_service_1.ApiKeysService).create('bench', 'owner@bench.example');
    const posts = app.get(posts_service_1.PostsService);
    const captureList = async (filter) => {
        const sent = [];
        const query = dataSource.query.bind(dataSource);
        dataSource.query = ((sql, params, runner) => {
            sent.push({ sql, params: params ?? [] });
            return query(sql, params, runner);
        });
        try {
            await posts.list(actor, filter);
        }
        finally {
            dataSource.query = query;
        }
        const lists = sent.filter((s) => s.sql.includes('FROM posts p WHERE'));
        return { ...lists[lists.length - 1], queries: lists.length };
    };
    const results = [];
    for (const c of CASES) {
        const q = c.query;
        const listed = await captureList({
            board: q.board, status: q.status, q: q.q, sort: (q.sort ?? 'new'),
            includeMerged: false, limit: 25, offset: Number(q.offset ?? 0),
        });
        const plan = (await db.query(`EXPLAIN (ANALYZE, BUFFERS) ${listed.sql}`, listed.params)).rows.map((r) => r['QUERY PLAN']);
        const used = [...new Set(plan.flatMap((l) => [...l.matchAll(/Index (?:Only )?Scan (?:Backward )?(?:using|on) (\w+)/g)].map((m) => m[1])))];
        const missing = c.expect.filter((i) => !used.includes(i));
        const execMs = Number(/Execution Time: ([\d.]+)/.exec(plan.join('\n'))?.[1]);
        (0, support_1.log)(`\n=== ${c.name}  ${JSON.stringify(q)}  params ${JSON.stringify(listed.params)}${listed.queries > 1 ? '  (the page was not full among the newest posts: the plan of the second query)' : ''}`);
        (0, support_1.log)(plan.join('\n'));
        (0, support_1.log)(missing.length ? `!! expected ${missing.join(', ')}; plan used ${used.join(', ') || 'no index'}` : `ok: uses ${c.expect.join(', ')}`);
        const url = `${baseUrl}/api/v1/posts?${new URLSearchParams(q)}`;
        const times = [];
        let rows = 0;
        let limited = 0;
        const requests = c.requests ?? REQUESTS;
        for (let i = 0; i < WARMUP + requests; i++) {
            const t = node_perf_hooks_1.performance.now();
            const res = await fetch(url, { headers: { Authorization: `Bearer ${key}` } });
            const body = (await res.json());
            const ms = node_perf_hooks_1.performance.now() - t;
            if (res.status === 429) {
                limited++;
                await (0, support_1.sleep)(1000 * Number(res.headers.get('retry-after') ?? 1));
                i--;
                continue;
            }
            if (res.status !== 200)
                throw new Error(`${url}: ${res.status} ${JSON.stringify(body)}`);
            rows = body.data.length;
            if (i >= WARMUP)
                times.push(ms);
        }
        times.sort((x, y) => x - y);
        results.push({
            case: c.name, 'plan ok': missing.length ? 'NO' : 'yes', indexes: used.filter((i) => i.startsWith('posts_') && i !== 'posts_pkey').join(' + '),
            queries: listed.queries, 'explain ms': execMs, rows, 'p50 ms': +(0, support_1.pct)(times, 50).toFixed(1), 'p95 ms': +(0, support_1.pct)(times, 95).toFixed(1),
            'max ms': +times[times.length - 1].toFixed(1), ...(limited ? { '429s': limited } : {}),
        });
    }
    (0, support_1.log)(`\nSummary: ${N} posts in workspace "bench" (+ ${TOTAL - N} in ${OTHERS} others); per case ${WARMUP} warm-up, then ${REQUESTS} timed sequential requests`);
    console.table(results);
    await db.end();
    await app.close();
    if (!support_1.KEEP)
        await admin.query(`DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`);
    await admin.end();
}
main().then(() => process.exit(0), (error) => {
    console.error(error);
    process.exit(1);
});
//# sourceMappingURL=list-posts.bench.js.map