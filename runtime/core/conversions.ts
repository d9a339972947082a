/**
 * Named value conversions between the stored model and an API version's view of it (a field's
 * `convert: { "4.0": gb_to_mb }` in the schema, a version's `convert:` in schema/versions.yaml):
 * `read` turns the value another version shows into this version's, `write` a value this version
 * receives into the stored one. Each is small, named and tested on its own.
 */
import type { Row } from '../data/registry.js';

export interface Conversion {
  /** `value`: what the field shows in the default form; `row`: the stored row; `name`: the field */
  read(value: unknown, row: Row, name: string): unknown;
  /** a value received in this version → the stored value (absent: stored as received) */
  write?(value: unknown): unknown;
}

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

export const conversions: Record<string, Conversion> = {
  /** `created` as the stored date-time, not its date */
  date_time: { read: (_v, row, name) => (row[name] === null || row[name] === undefined ? null : String(row[name])) },
  /** a token made before tokens had versions (stored null) is a v1 token */
  token_version: { read: (v) => (v === null || v === undefined ? 1 : v) },
  /** a token's `key` as NetBox 4.5+ shows it: a v2 token's public key, null for a v1 token */
  token_v2_key: { read: (_v, row) => (Number(row.version) === 2 ? row.v2_key ?? null : null) },
  /** a size stored in gigabytes, shown and written in megabytes (NetBox 4.0's disk sizes) */
  gb_to_mb: {
    read: (v) => (isNumber(v) ? v * 1000 : v),
    write: (v) => (isNumber(v) ? Math.round(v / 1000) : v),
  },
};
