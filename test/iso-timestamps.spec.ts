import { Pool } from 'pg';
import { Database, named, statement } from '../src/database/sql';
import { ISO_TIMESTAMPS, isoTimestamp } from '../src/database/timestamps';

/**
 * Rows read through ISO_TIMESTAMPS carry each `timestamptz` as the text the API writes: the
 * same as pg's `Date` and `toISOString()`, value for value, whatever the session's time zone.
 */
describe('ISO_TIMESTAMPS', () => {
  const db = new Database(new Pool({ connectionString: process.env.CHORUS_TEST_DATABASE_URL, max: 2 }));
  afterAll(() => db.end());

  // Every length of fraction PostgreSQL writes (it drops trailing zeros), the epoch, leap days,
  // a year before 1000, the last microsecond of a year.
  const VALUES = `VALUES ('2026-11-28 01:06:58+00'::timestamptz), ('2026-11-28 01:06:58.1+00'), ('2026-11-28 01:06:58.12+00'),
    ('2026-11-28 01:06:58.123+00'), ('2026-11-28 01:06:58.1234+00'), ('2026-11-28 01:06:58.12345+00'),
    ('2026-11-28 01:06:58.999999+00'), ('1970-01-01 00:00:00+00'), ('2024-02-29 23:59:59.5+00'), ('0999-12-31 23:59:59.999999+00'),
    ('2025-12-31 23:59:59.999999+00'), ('2026-11-28 01:32:21.365432+00'), ('2026-06-01 12:00:00.000001+00')`;

  it.each(['UTC', 'Asia/Kolkata', 'America/St_Johns'])('reads every value as toISOString() would, with the session in %s', async (zone) => {
    const read = await db.onConnection(async (client) => {
      await client.query(`SET TimeZone = '${zone}'`);
      try {
        const iso = await client.query({ text: `SELECT t FROM (${VALUES}) v (t)`, types: ISO_TIMESTAMPS });
        const dates = await client.query(`SELECT t FROM (${VALUES}) v (t)`);
        return { iso: iso.rows.map((row) => row.t), dates: dates.rows.map((row) => (row.t as Date).toISOString()) };
      } finally {
        await client.query('RESET TimeZone');
      }
    });
    expect(read.iso).toHaveLength(13);
    expect(read.iso).toEqual(read.dates);
    expect(read.iso[0]).toBe('2026-11-28T01:06:58.000Z');
    expect(read.iso[4]).toBe('2026-11-28T01:06:58.123Z');
    expect(read.iso[6]).toBe('2026-11-28T01:06:58.999Z');
  });

  it('rearranges what a UTC session writes, and leaves anything else to pg and toISOString()', () => {
    expect(isoTimestamp('2026-11-28 01:06:58+00')).toBe('2026-11-28T01:06:58.000Z');
    expect(isoTimestamp('2026-11-28 01:06:58.5+00')).toBe('2026-11-28T01:06:58.500Z');
    expect(isoTimestamp('2026-11-28 01:06:58.05+00')).toBe('2026-11-28T01:06:58.050Z');
    expect(isoTimestamp('2026-11-28 01:06:58.123456+00')).toBe('2026-11-28T01:06:58.123Z');
    expect(isoTimestamp('2026-11-28 06:36:58.123456+05:30')).toBe('2026-11-28T01:06:58.123Z');
    expect(isoTimestamp('2026-11-27 21:36:58.1-03:30')).toBe('2026-11-28T01:06:58.100Z');
    expect(isoTimestamp('2026-11-28 01:06:58.7+10')).toBe('2026-11-27T15:06:58.700Z');
    expect(() => isoTimestamp('infinity')).toThrow(TypeError); // as reading pg's Infinity with toISOString() did
    // Another DateStyle (SQL's, with a numeric zone) is not taken for ISO's: pg cannot read it either.
    expect(() => isoTimestamp('28/11/2026 01:06:58.123456 +00')).toThrow(TypeError);
  });

  it('is how a statement, a named text and a text with types are read; without it, timestamps are Dates', async () => {
    const text = `SELECT '2026-11-28 01:06:58.25+00'::timestamptz AS t, 7::int AS n`;
    const want = { t: '2026-11-28T01:06:58.250Z', n: 7 };
    expect(await db.rows(statement('iso_timestamps_test', text, ISO_TIMESTAMPS))).toEqual([want]);
    expect(await db.rows(named('iso_timestamps_named', `${text} -- named`, ISO_TIMESTAMPS))).toEqual([want]);
    expect(await db.rows({ text, types: ISO_TIMESTAMPS })).toEqual([want]);
    const [plain] = await db.rows<{ t: Date }>(statement('iso_timestamps_plain', text));
    expect(plain.t).toBeInstanceOf(Date);
    expect(plain.t.toISOString()).toBe(want.t);
  });
});
