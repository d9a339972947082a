/**
 * Named value conversions between the stored model and an API version's view of it (a field's
 * `convert: { "3.7": mb_to_gb, "4.0": null }` in the schema, a version's `convert:` in
 * schema/versions.yaml): `read` turns the stored value into this version's, `write` a value this
 * version receives into the stored one, and `bounds` the stored values a filter value of this
 * version stands for. Each is small, named and tested on its own.
 */
import type { Row } from './types.js';

export interface Conversion {
  /** `value`: what the field shows in the default form; `row`: the stored row; `name`: the field */
  read(value: unknown, row: Row, name: string): unknown;
  /** a value received in this version → the stored value (absent: stored as received) */
  write?(value: unknown): unknown;
  /**
   * the stored values that read as `value`, as [lowest, first above] (a filter of this version
   * compares with them: `disk__gte=2` is disk >= 1500 MB); absent: filters compare the value as given
   */
  bounds?(value: number): [number, number];
}

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** MB per GB, as NetBox 4.1's migration of disk sizes counts them */
const MB = 1000;

export const conversions: Record<string, Conversion> = {
  /** `created` as the stored date-time, not its date */
  date_time: { read: (_v, row, name) => (row[name] === null || row[name] === undefined ? null : String(row[name])) },
  /** a token made before tokens had versions (stored null) is a v1 token */
  token_version: { read: (v) => (v === null || v === undefined ? 1 : v) },
  /** a token's `key` as NetBox 4.5+ shows it: a v2 token's public key, null for a v1 token */
  token_v2_key: { read: (_v, row) => (Number(row.version) === 2 ? row.v2_key ?? null : null) },
  /**
   * a size stored in megabytes (NetBox 4.1's disk sizes), shown and written in gigabytes (3.7):
   * read rounded to the nearest whole GB, halves up (1,499 MB reads 1, 1,500 MB 2); a GB written is
   * stored as exactly that many thousand MB, so a 3.7 value reads back as written
   */
  mb_to_gb: {
    read: (v) => (isNumber(v) ? Math.floor(v / MB + 0.5) : v),
    write: (v) => (isNumber(v) ? v * MB : v),
    bounds: (v) => [v * MB - MB / 2, v * MB + MB / 2],
  },
};
