import { escapeLiteral } from 'pg';
import { sqlText } from '../src/database/queries';
import { startTestApp, TestApp } from './support/test-app';

/**
 * `sqlText` writes values into the SQL of prepared transactions (a create's title, body and
 * event): it must write what pg's `escapeLiteral` writes, and PostgreSQL must read back the very
 * value, whatever quotes, backslashes and other characters it holds.
 */
describe('sqlText', () => {
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
    '',
    "'",
    "''",
    '\\',
    "\\'",
    "a\\b'c",
    "E'x'",
    "'; DROP TABLE posts; --",
    '$1 $$ $tag$',
    'ünïcødé 🎉 and a line\nbreak',
    JSON.stringify({ post: { title: 'He said "no"', body: 'C:\\path\\to\\file\nand \'quotes\'' } }),
    ...randomTexts(200),
  ];

  it('writes what pg\'s escapeLiteral writes', () => {
    for (const text of texts) expect([text, sqlText(text)]).toEqual([text, escapeLiteral(text)]);
  });

  it('is read back by PostgreSQL as the same text', async () => {
    const rows: { i: number; v: string }[] = await t.db.query(
      texts.map((text, i) => `SELECT ${i} AS i, ${sqlText(text)}::text AS v`).join(' UNION ALL ') + ' ORDER BY i',
    );
    expect(rows.map((row) => row.v)).toEqual(texts);
  });

  it('refuses what is not a string (escapeLiteral wrote an empty literal for it)', () => {
    expect(() => sqlText(undefined as unknown as string)).toThrow('Not a string for SQL: undefined');
    expect(() => sqlText(7 as unknown as string)).toThrow('Not a string for SQL: number');
  });
});
