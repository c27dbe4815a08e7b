import { types, type CustomTypesConfig } from 'pg';

/** PostgreSQL's type id of `timestamp with time zone`. */
const TIMESTAMPTZ = 1184;

const parseDate = types.getTypeParser(TIMESTAMPTZ, 'text') as (text: string) => Date;

/**
 * A `timestamptz` as the API writes it: ISO 8601 in UTC to the millisecond
 * (`2026-11-28T01:06:58.123Z`), exactly what pg's `Date` gives through `toISOString()`, the
 * fraction cut (not rounded) to milliseconds as a `Date` cuts it. A session in UTC writes the
 * value as `2026-11-28 01:06:58.123456+00`, which is rearranged here without a `Date` made for
 * it; any other form (another time zone, BC, a year past 9999, infinity) goes through pg's
 * parser and `toISOString()`, as before.
 */
export function isoTimestamp(text: string): string {
  const length = text.length;
  const at = (index: number) => text.charCodeAt(index);
  // `YYYY-MM-DD HH:MM:SS`, then `.` and 1 to 6 digits or nothing, then `+00`.
  const utcIso =
    length >= 22 && length <= 29 && at(4) === 45 && at(7) === 45 && at(10) === 32 && at(13) === 58 && at(16) === 58 &&
    at(length - 3) === 43 && at(length - 2) === 48 && at(length - 1) === 48;
  if (!utcIso) return parseDate(text).toISOString();
  const fraction = length === 22 ? '000' : length === 24 ? `${text[20]}00` : length === 25 ? `${text.slice(20, 22)}0` : text.slice(20, 23);
  return `${text.slice(0, 10)}T${text.slice(11, 19)}.${fraction}Z`;
}

/**
 * pg's parsers, but `timestamptz` read as `isoTimestamp` text: for statements whose rows the
 * API shows as they are (a page of posts makes 52 `Date`s only to write them out again).
 */
export const ISO_TIMESTAMPS: CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === TIMESTAMPTZ && format !== 'binary' ? isoTimestamp : types.getTypeParser(oid, format)) as CustomTypesConfig['getTypeParser'],
};
