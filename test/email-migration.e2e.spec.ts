import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { EmailNormalForm1763820000000 } from '../migrations/1763820000000-EmailNormalForm';
import { newDataSource, runMigrations } from '../src/database/database';
import { onEmbeddedDatabase } from './support/test-app';

// The migration that brings people's addresses to their normal form, on a database of its own
// (it must find the rows as the code before it left them): it rewrites what it can, merges
// nobody, and stops, naming the rows, when two people would become one.

const onPostgres = onEmbeddedDatabase() ? describe.skip : describe;
const MIGRATION = new EmailNormalForm1763820000000().name;

onPostgres('the migration to one normal form of an address', () => {
  const serverUrl: string = onEmbeddedDatabase() ? '' : JSON.parse(process.env.CHORUS_TEST_DATABASE!).serverUrl;
  const dbName = `chorus_test_email_${Date.now()}_${process.pid}`;
  const dbUrl = onEmbeddedDatabase() ? '' : Object.assign(new URL(serverUrl), { pathname: `/${dbName}` }).toString();
  let source: DataSource;
  let sql: Client;
  let workspace: string;

  /** The database as the code before this migration left it: addresses as typed, unique by lower(). */
  async function before(): Promise<void> {
    await sql.query(`DELETE FROM people`);
    const runner = source.createQueryRunner();
    try {
      await new EmailNormalForm1763820000000().down(runner);
    } finally {
      await runner.release();
    }
    await sql.query(`DELETE FROM migrations WHERE name = $1`, [MIGRATION]);
  }

  // Each person a millisecond after the one before (created_at keeps milliseconds): the order they were made in.
  let made = 0;
  const person = async (email: string, kind = 'user') =>
    (
      await sql.query(
        `INSERT INTO people (workspace_id, kind, name, email, created_at) VALUES ($1, $2, $3, $4, now() + $5 * interval '1 millisecond') RETURNING id`,
        [workspace, kind, `Named ${email}`, email, ++made],
      )
    ).rows[0].id as string;
  const emails = async () => (await sql.query(`SELECT email FROM people ORDER BY created_at, id`)).rows.map((r) => r.email);

  beforeAll(async () => {
    const admin = new Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${dbName}`);
    await admin.end();
    source = await newDataSource({ url: dbUrl, embedded: false, close: async () => {} }).initialize();
    await runMigrations(source, false);
    sql = new Client({ connectionString: dbUrl });
    await sql.connect();
    workspace = (await sql.query(`INSERT INTO workspaces (name, slug, plan) VALUES ('Acme', 'acme', 'pro') RETURNING id`)).rows[0].id;
  });

  afterAll(async () => {
    await sql?.end();
    await source?.destroy();
    const admin = new Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
  });

  it('rewrites clean data in its normal form, keeps lookalikes apart, and then holds the rule', async () => {
    await before();
    await person('Dana@Vendir.COM', 'member');
    await person('dana@vend\u0131r.com');
    await person('\u212Aim@Example.com');
    await person('Stra\u00DFe@EXAMPLE.com');
    await person('lee@\uFF45\uFF58\uFF41\uFF4D\uFF50\uFF4C\uFF45.com');
    await sql.query(`INSERT INTO people (workspace_id, kind, name, created_at) VALUES ($1, 'guest', 'No Address', now() + $2 * interval '1 millisecond')`, [workspace, ++made]);

    expect(await runMigrations(source, false)).toEqual([MIGRATION]);
    expect(await emails()).toEqual(['dana@vendir.com', 'dana@xn--vendr-q4a.com', '\u212Aim@example.com', 'stra\u00DFe@example.com', 'lee@example.com', null]);
    await expect(person('dana@vendir.com')).rejects.toThrow(/people_email_key/);
    await expect(person('Lee@example.com')).rejects.toThrow(/people_email_normal/);
    // lower() would take the Kelvin sign for a k: now kim@example.com is someone else.
    await person('kim@example.com');
  });

  it('stops on two people with one normal form, naming them, and changes nothing', async () => {
    await before();
    const dana = await person('dana@vendir.com', 'member');
    const lookalike = await person('Dana@\uFF56\uFF45\uFF4E\uFF44\uFF49\uFF52.com');
    const broken = await person('nobody@exa_mple');
    await person('Kept@Example.com');

    const failure = await runMigrations(source, false).then(
      () => null,
      (error: Error) => error.message,
    );
    expect(failure).toContain('nothing was changed');
    expect(failure).toContain(`workspace ${workspace}, "dana@vendir.com":`);
    expect(failure).toContain(`person ${dana} (member, "Named dana@vendir.com"`);
    expect(failure).toContain(`person ${lookalike} (user,`);
    expect(failure).toContain(`person ${broken} (user, "Named nobody@exa_mple"`);
    expect(failure).toContain('not valid email addresses');
    expect(await emails()).toEqual(['dana@vendir.com', 'Dana@\uFF56\uFF45\uFF4E\uFF44\uFF49\uFF52.com', 'nobody@exa_mple', 'Kept@Example.com']);
    expect((await sql.query(`SELECT 1 FROM migrations WHERE name = $1`, [MIGRATION])).rows).toEqual([]);

    // The operator settles who is who; the migration then runs.
    await sql.query(`UPDATE people SET email = NULL WHERE id = ANY ($1::uuid[])`, [[lookalike, broken]]);
    expect(await runMigrations(source, false)).toEqual([MIGRATION]);
    expect(await emails()).toEqual(['dana@vendir.com', null, null, 'kept@example.com']);
  });
});
