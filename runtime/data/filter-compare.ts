/**
 * How one filter's values compare with a column: values parsed as the column's type (a 400 when
 * they do not parse), and each lookup (`exact`, `n`, `lt`…, `ic`…, `empty`) as SQL.
 */
import type { Knex } from 'knex';
import { errors } from '../core/errors.js';
import { MAX_ID } from '../core/ids.js';
import { choiceSet } from './registry.js';
import type { FieldDefinition, ModelEntry } from '../core/types.js';
import { parseBoolean } from '../core/query-values.js';
import { orEach } from './or-each.js';

export type Where = Knex.QueryBuilder;

export function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`);
}

export function parseScalar(param: string, value: string, type: string): string | number {
  switch (type) {
    case 'integer': case 'id': case 'fk': {
      if (!/^-?\d+$/.test(value)) throw errors.badFilter(param, 'Enter a whole number.');
      // Ids are 32-bit columns; other integers are 64-bit, of which JavaScript counts exactly up to 2^53.
      const max = type === 'integer' ? Number.MAX_SAFE_INTEGER : MAX_ID;
      const n = Number(value);
      if (!(Math.abs(n) <= max)) throw errors.badFilter(param, `Ensure this value is between ${-max} and ${max}.`);
      return n;
    }
    case 'decimal':
      if (!/^-?\d+(\.\d+)?$/.test(value) || !Number.isFinite(Number(value))) throw errors.badFilter(param, 'Enter a number.');
      return Number(value);
    case 'date':
      if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) throw errors.badFilter(param, 'Enter a valid date (YYYY-MM-DD).');
      return value;
    case 'datetime':
      if (!/^\d{4}-\d{2}-\d{2}([T ][\d:.]+Z?)?$/.test(value)) throw errors.badFilter(param, 'Enter a valid date/time.');
      return storedDateTime(value.replace(' ', 'T'));
    default:
      return value;
  }
}

/**
 * A date-time as stored (UTC, with milliseconds), so `2099-12-31T23:59:59Z` finds what was written
 * as such; a date alone stays as given (it compares as the start of that day).
 */
function storedDateTime(value: string): string {
  if (!value.includes('T')) return value;
  const time = Date.parse(value.endsWith('Z') ? value : `${value}Z`);
  return Number.isNaN(time) ? value : new Date(time).toISOString();
}

/** Column and value type a `field` filter compares. */
export function fieldTarget(entry: ModelEntry, name: string): { column: string; type: string; field?: FieldDefinition } {
  const field = entry.definition.fields[name];
  if (field) return { column: field.columns[0], type: field.type === 'generic_fk' ? 'string' : field.type, field };
  if (name === 'id') return { column: name, type: 'id' };
  if (name.endsWith('_id')) return { column: name, type: 'integer' };
  return { column: name, type: 'datetime' };
}

export function choiceValue(param: string, field: FieldDefinition | undefined, value: string): string | number {
  if (field?.type === 'choice' && choiceSet(field.choices!).integer) return parseScalar(param, value, 'id');
  return value;
}

/**
 * A filter's values parsed as the type of the column they are compared with: PostgreSQL refuses to
 * compare 'abc' with a number column or 2147483648 with an id column (an error, not an empty result).
 */
export function valuesOf(param: string, target: { type: string; field?: FieldDefinition }, values: string[]): (string | number)[] {
  return values.map((v) => (target.field?.type === 'choice' ? choiceValue(param, target.field, v) : parseScalar(param, v, target.type)));
}

/** Applies one lookup of a scalar column; `text`: the column holds text, so `empty` matches '' too. */
export function compare(qb: Where, column: string, lookup: string, values: (string | number)[], param: string, text = true): void {
  const col = column;
  switch (lookup) {
    case 'exact': qb.whereIn(col, values); return;
    case 'n': qb.where((w) => w.whereNotIn(col, values).orWhereNull(col)); return;
    case 'lt': case 'lte': case 'gt': case 'gte': {
      const op = { lt: '<', lte: '<=', gt: '>', gte: '>=' }[lookup];
      qb.where((w) => orEach(w, values, (x, v) => x.where(col, op, v)));
      return;
    }
    case 'empty': {
      const empty = parseBoolean(param, String(values[0]));
      if (!text) { if (empty) qb.whereNull(col); else qb.whereNotNull(col); return; }
      if (empty) qb.where((w) => w.whereNull(col).orWhere(col, ''));
      else qb.whereNotNull(col).whereNot(col, '');
      return;
    }
  }
  const patterns: Record<string, (v: string) => string> = {
    ic: (v) => `%${escapeLike(v)}%`, nic: (v) => `%${escapeLike(v)}%`,
    isw: (v) => `${escapeLike(v)}%`, nisw: (v) => `${escapeLike(v)}%`,
    iew: (v) => `%${escapeLike(v)}`, niew: (v) => `%${escapeLike(v)}`,
    ie: (v) => escapeLike(v), nie: (v) => escapeLike(v),
  };
  const pattern = patterns[lookup];
  const negated = lookup.startsWith('n');
  const like = (w: Where, v: string | number) => w.whereRaw(`lower(??) like ? escape '\\'`, [col, pattern(String(v).toLowerCase())]);
  if (negated) qb.where((w) => w.whereNot((x) => orEach(x, values, like)).orWhereNull(col));
  else qb.where((w) => orEach(w, values, like));
}

/**
 * A comparison in a version's units of a field stored in others: each value stands for the stored
 * values [lo, hi) that read as it (3.7's `disk=2`: 1500 <= disk < 2500 MB).
 */
export function compareConverted(qb: Knex.QueryBuilder, col: string, lookup: string, ranges: [number, number][]): void {
  const within = (w: Knex.QueryBuilder, [lo, hi]: [number, number]) => w.where((x) => x.where(col, '>=', lo).where(col, '<', hi));
  switch (lookup) {
    case 'exact': qb.where((w) => orEach(w, ranges, within)); return;
    case 'n': qb.where((w) => w.whereNot((x) => orEach(x, ranges, within)).orWhereNull(col)); return;
    case 'lt': qb.where((w) => orEach(w, ranges, (x, [lo]) => x.where(col, '<', lo))); return;
    case 'lte': qb.where((w) => orEach(w, ranges, (x, [, hi]) => x.where(col, '<', hi))); return;
    case 'gt': qb.where((w) => orEach(w, ranges, (x, [, hi]) => x.where(col, '>=', hi))); return;
    case 'gte': qb.where((w) => orEach(w, ranges, (x, [lo]) => x.where(col, '>=', lo))); return;
  }
}
