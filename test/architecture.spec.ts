import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

// Every table is written from its owner's store only: docs/architecture.md's table "Which folder
// owns which table" is the rule, and every INSERT, UPDATE and DELETE in src/ is held to it.

const ROOT = join(__dirname, '..');

interface Owner {
  folder: string;
  /** The store files that write the table (the first is its store; others write it in a statement of theirs). */
  stores: string[];
}

/** The ownership table of docs/architecture.md: | `table` | `src/folder` | `x.store.ts`[, `y.store.ts`] |. */
function documentedOwners(): Map<string, Owner> {
  const doc = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
  const owners = new Map<string, Owner>();
  for (const [, table, folder, stores] of doc.matchAll(/^\| `([a-z_]+)` \| `(src\/[a-z/-]+)` \| ((?:`[a-z.-]+\.store\.ts`(?:, )?)+) \|$/gm)) {
    owners.set(table, { folder, stores: [...stores.matchAll(/`([^`]+)`/g)].map(([, store]) => `${folder}/${store}`) });
  }
  return owners;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

/** Each table a statement in `source` writes: `INSERT INTO t`, `UPDATE t`, `DELETE FROM t`. */
export function writtenTables(source: string): string[] {
  return [...source.matchAll(/\b(?:INSERT INTO|UPDATE|DELETE FROM)\s+([a-z_]+)\b/g)].map((m) => m[1]);
}

/**
 * The tables that the migrations create (none is dropped but by a migration's `down`), and the
 * temporary ones a store makes for its session (an import's).
 */
function createdTables(): Set<string> {
  const tables = new Set<string>();
  for (const file of readdirSync(join(ROOT, 'migrations'))) {
    const text = readFileSync(join(ROOT, 'migrations', file), 'utf8');
    for (const [, table] of text.matchAll(/CREATE TABLE (?:IF NOT EXISTS )?"?([a-z_]+)/g)) tables.add(table);
  }
  for (const file of sourceFiles(join(ROOT, 'src'))) {
    for (const [, table] of readFileSync(file, 'utf8').matchAll(/CREATE TEMP TABLE (?:IF NOT EXISTS )?([a-z_]+)/g)) tables.add(table);
  }
  return tables;
}

describe('which folder owns which table (docs/architecture.md)', () => {
  const owners = documentedOwners();

  it('names an owner and a store for every table the migrations create, and no other', () => {
    expect([...owners.keys()].sort()).toEqual([...createdTables()].sort());
  });

  it('finds the statements that write a table, and nothing else', () => {
    expect(writtenTables(`INSERT INTO posts (a) VALUES ($1) ON CONFLICT (a) DO UPDATE SET a = $1`)).toEqual(['posts']);
    expect(writtenTables(`UPDATE webhook_endpoints e SET n = 1; DELETE FROM votes WHERE id = $1`)).toEqual(['webhook_endpoints', 'votes']);
    expect(writtenTables(`SELECT * FROM posts FOR UPDATE SKIP LOCKED`)).toEqual([]);
  });

  it('has every write of a table in its owner’s store', () => {
    const misplaced: string[] = [];
    for (const file of sourceFiles(join(ROOT, 'src'))) {
      const path = relative(ROOT, file);
      for (const table of writtenTables(readFileSync(file, 'utf8'))) {
        const owner = owners.get(table);
        if (!owner) misplaced.push(`${path} writes ${table}, which has no owner in docs/architecture.md`);
        else if (!owner.stores.includes(path)) misplaced.push(`${path} writes ${table}, owned by ${owner.stores.join(' and ')}`);
      }
    }
    expect(misplaced).toEqual([]);
  });
});
