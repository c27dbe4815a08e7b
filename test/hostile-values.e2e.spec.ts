import { Database } from '../src/database/sql';
import { createWorkspace } from './support/factories';
import { Client } from './support/http';
import { startTestApp, TestApp } from './support/test-app';

/**
 * Values never go into SQL text: every store binds them as parameters. Whatever quotes,
 * backslashes, dollar signs or other characters a stranger's text holds, it is stored and read
 * back as it was, through the API and through `Database` itself.
 */
describe('text that means something to SQL', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  /** A fixed sequence of random strings over characters that matter to SQL and JSON. */
  const randomTexts = (count: number): string[] => {
    const alphabet = ['a', 'Z', '0', ' ', "'", '\\', '"', '$', ';', '-', '/', '*', '\n', '\t', 'E', 'é', '🎉', '\u2028'];
    let seed = 22;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    return Array.from({ length: count }, () => Array.from({ length: next() % 60 }, () => alphabet[next() % alphabet.length]).join(''));
  };

  const texts = [
    "'",
    "''",
    '\\',
    "\\'",
    "a\\b'c",
    "E'x'",
    "'; DROP TABLE posts; --",
    "x'); DELETE FROM posts WHERE ('1' = '1",
    '$1 $$ $tag$',
    'ünïcødé 🎉 and a line\nbreak',
    JSON.stringify({ post: { title: 'He said "no"', body: 'C:\\path\\to\\file\nand \'quotes\'' } }),
    ...randomTexts(60),
  ];
  /** What the API keeps of a body: it trims. */
  const kept = (text: string) => text.trim();

  it('is bound, not spliced, by Database: PostgreSQL reads back the very value', async () => {
    const db = t.app.get(Database);
    const rows = await db.rows<{ v: string[] }>(`SELECT $1::text[] AS v`, [texts]);
    expect(rows[0].v).toEqual(texts);
    for (const text of texts.slice(0, 12)) {
      const [row] = await db.rows<{ v: string; n: number }>(`SELECT $1::text AS v, length($1::text) AS n`, [text]);
      expect(row).toEqual({ v: text, n: [...text].length });
    }
  });

  it('is stored and answered as it was, in post titles and bodies and in comments, and the posts table is untouched', async () => {
    const ws = await createWorkspace(t.app, { plan: 'business' });
    const api = new Client(t.baseUrl, ws.key);
    const before: { n: string }[] = await t.db.query(`SELECT count(*) AS n FROM posts`);
    let stored = 0;
    for (const [i, text] of texts.entries()) {
      const title = `#${i} ${text}`.trim().slice(0, 120).padEnd(4, '.');
      const created = await api.post('/api/v1/posts', { board: 'ideas', title, body: text });
      if (created.status !== 201) {
        // Titles refuse some control characters; the body alone must still go in as it is.
        expect(created.status).toBe(400);
        continue;
      }
      const post = (await api.get(`/api/v1/posts/${created.body.data.id}`)).body.data;
      expect(post.body).toBe(kept(text));
      expect(post.title).toBe(title);
      stored++;
      const comment = await api.post(`/api/v1/posts/${post.id}/comments`, { body: `${text} (a reply)` });
      expect(comment.status).toBe(201);
      expect(comment.body.data.body).toBe(kept(`${text} (a reply)`));
    }
    expect(stored).toBeGreaterThan(texts.length / 2);
    const found = await api.get(`/api/v1/posts?q=${encodeURIComponent("DROP TABLE")}&limit=100`);
    expect(found.status).toBe(200);
    expect(found.body.data.map((p: { body: string }) => p.body)).toContain("'; DROP TABLE posts; --");
    const after: { n: string }[] = await t.db.query(`SELECT count(*) AS n FROM posts`);
    expect(Number(after[0].n)).toBeGreaterThan(Number(before[0].n));
  });
});
