import { MigrationInterface, QueryRunner } from 'typeorm';
import { normalEmail } from '../src/common/email-address';

interface PersonRow {
  workspace_id: string;
  id: string;
  kind: string;
  name: string;
  email: string;
  created_at: Date;
}

/**
 * People's addresses in their one normal form (src/common/email-address.ts: the domain as IDNA
 * ASCII, the local part's ASCII letters lower-cased, nothing else folded), and one person per
 * normal form in a workspace. Until now people were matched with lower(), which makes the
 * Kelvin sign a k and İ an i, so a lookalike address signed in as the person it imitates.
 *
 * Existing rows are rewritten in that form; nothing is merged. If two people of a workspace
 * have one normal form (`dana@ｖendir.com` and `dana@vendir.com`, which lower() kept apart), or
 * an address has none, the migration stops, changes nothing, and names the rows: an operator
 * decides who is who (change or clear an address), then starts the service again.
 *
 * The database then holds the rule: a unique index on (workspace_id, email), and a check that
 * an address has no ASCII capital, no white space, one `@`, and an ASCII host name after it.
 * The normal form is this module's as it is today; should it ever change, a new migration
 * rewrites the rows again.
 */
export class EmailNormalForm1763820000000 implements MigrationInterface {
  name = 'EmailNormalForm1763820000000';

  async up(q: QueryRunner): Promise<void> {
    const rows: PersonRow[] = await q.query(
      `SELECT workspace_id, id, kind, name, email, created_at FROM people WHERE email IS NOT NULL ORDER BY workspace_id, created_at, id`,
    );
    const invalid: PersonRow[] = [];
    const byNormal = new Map<string, PersonRow[]>();
    for (const row of rows) {
      const normal = normalEmail(row.email);
      if (normal === null) {
        invalid.push(row);
        continue;
      }
      const key = `${row.workspace_id} ${normal}`;
      byNormal.set(key, [...(byNormal.get(key) ?? []), row]);
    }
    const clashes = [...byNormal.entries()].filter(([, people]) => people.length > 1);
    if (invalid.length > 0 || clashes.length > 0) throw new Error(report(invalid, clashes));

    await q.query(`DROP INDEX IF EXISTS people_email_key`);
    for (const [key, [row]] of byNormal) {
      const normal = key.slice(key.indexOf(' ') + 1);
      if (normal !== row.email) {
        await q.query(`UPDATE people SET email = $3 WHERE workspace_id = $1 AND id = $2`, [row.workspace_id, row.id, normal]);
      }
    }
    await q.query(`CREATE UNIQUE INDEX people_email_key ON people (workspace_id, email) WHERE email IS NOT NULL`);
    await q.query(
      `ALTER TABLE people ADD CONSTRAINT people_email_normal
         CHECK (email ~ '^[^@[:space:]]+@[a-z0-9-]+(\\.[a-z0-9-]+)*$' AND email !~ '[A-Z]')`,
    );
  }

  /**
   * Back to lower(): the addresses stay in their normal form (the form they were typed in is
   * gone), and two people that lower() takes for one (`kim@` and `Kim@` with the Kelvin sign)
   * stop it.
   */
  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE people DROP CONSTRAINT IF EXISTS people_email_normal`);
    await q.query(`DROP INDEX IF EXISTS people_email_key`);
    await q.query(`CREATE UNIQUE INDEX people_email_key ON people (workspace_id, lower(email)) WHERE email IS NOT NULL`);
  }
}

function describe(row: PersonRow): string {
  return `    person ${row.id} (${row.kind}, "${row.name}", created ${row.created_at.toISOString()}): ${JSON.stringify(row.email)}`;
}

function report(invalid: PersonRow[], clashes: [string, PersonRow[]][]): string {
  const lines = ['EmailNormalForm: nothing was changed. People are now told apart by the normal form of their address, and:'];
  if (clashes.length > 0) {
    lines.push(`- ${clashes.length} address(es) would belong to several people of one workspace. Change or clear the address of all but one of each:`);
    for (const [key, people] of clashes) {
      const [workspaceId, normal] = [key.slice(0, key.indexOf(' ')), key.slice(key.indexOf(' ') + 1)];
      lines.push(`  workspace ${workspaceId}, ${JSON.stringify(normal)}:`, ...people.map(describe));
    }
  }
  if (invalid.length > 0) {
    lines.push(`- ${invalid.length} address(es) are not valid email addresses. Correct or clear them:`);
    for (const row of invalid) lines.push(`  workspace ${row.workspace_id}:`, describe(row));
  }
  lines.push('For example: UPDATE people SET email = NULL WHERE workspace_id = \'<workspace>\' AND id = \'<person>\'; then start the service again.');
  return lines.join('\n');
}
