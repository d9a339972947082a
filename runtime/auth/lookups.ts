/**
 * Permission constraints in Django's lookup syntax, as NetBox stores them: `{"pk": 3}`,
 * `{"site__slug": "dc1"}`, `{"tenant__group__name__istartswith": "x"}`, `{"vid__gte": 100}`,
 * `{"prefix__net_contained": "10.0.0.0/8"}`. A key is a path of fields (`pk`, a concrete field, a
 * foreign key's `<name>_id`, a foreign key followed into its model, tags) and a lookup (`exact` when
 * none is named). Every key of one object must hold; each becomes SQL (a relation path a subquery).
 */
import type { Knex } from 'knex';
import type { FieldDefinition, ModelEntry } from '../core/types.js';
import { model } from '../data/registry.js';
import { isPostgres } from '../data/db.js';
import { parseNetwork } from '../core/ipnet.js';
import { TAGGED_ITEMS } from '../data/tagged-items.js';

type Where = Knex.QueryBuilder;
type Condition = (qb: Where, db: Knex) => void;

const TEXT = ['exact', 'iexact', 'in', 'gt', 'gte', 'lt', 'lte', 'contains', 'icontains', 'startswith', 'istartswith', 'endswith', 'iendswith', 'isnull', 'regex', 'iregex'];
const NET = ['net_contained', 'net_contained_or_equal', 'net_contains', 'net_contains_or_equals', 'net_host', 'net_in', 'net_mask_length', 'family'];
const LOOKUPS = new Set([...TEXT, ...NET]);

export class LookupProblem extends Error {}

const fail = (message: string): never => { throw new LookupProblem(message); };

/** The primary key, which the schema's field lists leave implicit. */
const ID = { name: 'id', type: 'integer', label: 'ID', required: false, nullable: false, readOnly: true, writeOnly: false, unique: true, uniqueCi: false, columns: ['id'] } as FieldDefinition;

/** A field of `entry` by Django name: `pk`, a field, a foreign key's attname (`site_id`), an alias's field. */
function fieldOf(entry: ModelEntry, name: string): FieldDefinition | null {
  const fields = entry.definition.fields;
  if (name === 'pk' || name === 'id') return fields.id ?? ID;
  let f = fields[name];
  if (!f && name.endsWith('_id') && fields[name.slice(0, -3)]?.type === 'fk') f = fields[name.slice(0, -3)];
  if (f?.type === 'alias' && f.of) f = fields[f.of];
  if (!f || ['computed', 'alias', 'password', 'token_key', 'generic_fk'].includes(f.type)) return null;
  return f;
}

function integer(v: unknown, where: string): number {
  const n = typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n)) fail(`'${String(v)}' is not a whole number (${where}).`);
  return n as number;
}

/** A value as the column stores it. */
function stored(f: FieldDefinition, v: unknown, where: string, db: Knex): unknown {
  if (v === null) return null;
  if (['fk', 'integer', 'm2m'].includes(f.type) || f.name === 'id') return integer(v, where);
  if (f.type === 'boolean') {
    const b = v === true || v === 'true' || v === 1 ? true : v === false || v === 'false' || v === 0 ? false : fail(`'${String(v)}' is not true or false (${where}).`);
    return isPostgres(db) ? b : b ? 1 : 0;
  }
  if (typeof v === 'number' && ['decimal'].includes(f.type)) return v;
  if (typeof v !== 'string' && typeof v !== 'number') fail(`${JSON.stringify(v)} is not a value (${where}).`);
  return String(v);
}

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The SQL of one lookup on one column. */
function leaf(f: FieldDefinition, column: string, lookup: string, raw: unknown, where: string, db: Knex): Condition {
  const pg = isPostgres(db);
  if (lookup === 'isnull') {
    if (typeof raw !== 'boolean') fail(`isnull takes true or false (${where}).`);
    return (qb) => { if (raw) qb.whereNull(column); else qb.whereNotNull(column); };
  }
  if (NET.includes(lookup)) return network(f, lookup, raw, where);
  if (lookup === 'in') {
    if (!Array.isArray(raw)) fail(`'in' takes a list (${where}).`);
    const values = (raw as unknown[]).filter((v) => v !== null).map((v) => stored(f, v, where, db));
    return (qb) => { qb.whereIn(column, values as never); };
  }
  if (raw === null && lookup === 'exact') return (qb) => { qb.whereNull(column); };
  const value = stored(f, raw, where, db);
  if (value === null) fail(`null is not a value for '${lookup}' (${where}).`);
  const text = String(value);
  const lower = (qb: Where, sql: string, bindings: Knex.RawBinding[]) => qb.whereRaw(sql, bindings);
  switch (lookup) {
    case 'exact': return (qb) => { qb.where(column, value as never); };
    case 'gt': case 'gte': case 'lt': case 'lte': {
      const op = { gt: '>', gte: '>=', lt: '<', lte: '<=' }[lookup];
      return (qb) => { qb.where(column, op, value as never); };
    }
    case 'iexact': return (qb) => lower(qb, 'lower(??) = lower(?)', [column, text]);
    case 'icontains': return (qb) => lower(qb, `lower(??) like ? escape '\\'`, [column, `%${escapeLike(text.toLowerCase())}%`]);
    case 'istartswith': return (qb) => lower(qb, `lower(??) like ? escape '\\'`, [column, `${escapeLike(text.toLowerCase())}%`]);
    case 'iendswith': return (qb) => lower(qb, `lower(??) like ? escape '\\'`, [column, `%${escapeLike(text.toLowerCase())}`]);
    case 'contains': return (qb) => lower(qb, pg ? 'strpos(??, ?) > 0' : 'instr(??, ?) > 0', [column, text]);
    case 'startswith': return (qb) => lower(qb, 'substr(??, 1, ?) = ?', [column, text.length, text]);
    case 'endswith': return (qb) => lower(qb, pg ? 'right(??, ?) = ?' : 'substr(??, -?) = ?', [column, text.length, text]);
    case 'regex': case 'iregex': {
      try { new RegExp(text); } catch { fail(`'${text}' is not a regular expression (${where}).`); }
      const sql = pg ? `?? ${lookup === 'regex' ? '~' : '~*'} ?` : `${lookup}p(?, ??)`;
      return (qb) => lower(qb, sql, pg ? [column, text] : [text, column]);
    }
  }
  return fail(`Unknown lookup '${lookup}' (${where}).`);
}

/** NetBox's lookups on addresses and prefixes, over the stored bounds (ipnet.ts). */
function network(f: FieldDefinition, lookup: string, raw: unknown, where: string): Condition {
  if (f.type !== 'ip_prefix' && f.type !== 'ip_address') fail(`'${lookup}' applies to addresses and prefixes only (${where}).`);
  const c = f.columns[0];
  if (lookup === 'family') { const fam = integer(raw, where); return (qb) => { qb.where('family', fam); }; }
  if (lookup === 'net_mask_length') { const len = integer(raw, where); return (qb) => { qb.where(`${c}_length`, len); }; }
  const list = lookup === 'net_in' ? (Array.isArray(raw) ? raw : fail(`'net_in' takes a list (${where}).`)) : [raw];
  const nets = (list as unknown[]).map((v) => parseNetwork(String(v)) ?? fail(`'${String(v)}' is not a network (${where}).`));
  return (qb) => qb.where((any) => {
    for (const n of nets) {
      any.orWhere((x) => {
        x.where('family', n.family);
        switch (lookup) {
          case 'net_contained': x.where(`${c}_first`, '>=', n.first).where(`${c}_last`, '<=', n.last).where(`${c}_length`, '>', n.length); break;
          case 'net_contained_or_equal': case 'net_in': x.where(`${c}_first`, '>=', n.first).where(`${c}_last`, '<=', n.last).where(`${c}_length`, '>=', n.length); break;
          case 'net_contains': x.where(`${c}_first`, '<=', n.first).where(`${c}_last`, '>=', n.last).where(`${c}_length`, '<', n.length); break;
          case 'net_contains_or_equals': x.where(`${c}_first`, '<=', n.first).where(`${c}_last`, '>=', n.last).where(`${c}_length`, '<=', n.length); break;
          case 'net_host': x.where(f.type === 'ip_address' ? `${c}_host` : `${c}_first`, n.host); break;
        }
      });
    }
  });
}

/** One key (`tenant__group__name__istartswith`) on `entry`, as a condition on its rows. */
function compileKey(entry: ModelEntry, parts: string[], raw: unknown, key: string, db: Knex): Condition {
  const [name, ...rest] = parts;
  const ct = entry.definition.contentType;
  if (name === 'tags' && entry.definition.tags) {
    const sub = rest.length && !LOOKUPS.has(rest[0]) ? compileKey(model('Tag'), rest, raw, key, db) : compileKey(model('Tag'), ['id', ...rest], raw, key, db);
    return (qb, d) => { qb.whereIn('id', d(TAGGED_ITEMS).select('object_id').where('object_type', ct).whereIn('tag_id', (s) => { s.from(model('Tag').definition.table).select('id'); sub(s, d); })); };
  }
  const f = fieldOf(entry, name) ?? fail(`'${name}' is not a field of ${ct} (in '${key}').`);
  const where = `'${key}'`;
  if (f.type === 'm2m') {
    const target = model(f.to!);
    const sub = rest.length && !LOOKUPS.has(rest[0]) ? compileKey(target, rest, raw, key, db) : compileKey(target, ['id', ...rest], raw, key, db);
    return (qb, d) => { qb.whereIn('id', d(f.through!).select('from_id').whereIn('to_id', (s) => { s.from(target.definition.table).select('id'); sub(s, d); })); };
  }
  if (f.type === 'fk' && rest.length && !LOOKUPS.has(rest[0]) && name !== `${f.name}_id`) {
    const target = model(f.to!);
    const sub = compileKey(target, rest, raw, key, db);
    const column = f.columns[0];
    return (qb, d) => { qb.whereIn(column, (s) => { s.from(target.definition.table).select('id'); sub(s, d); }); };
  }
  if (rest.length > 1) fail(`'${rest[0]}' is not a relation of ${ct} (in '${key}').`);
  const lookup = rest[0] ?? 'exact';
  if (!LOOKUPS.has(lookup)) fail(`'${lookup}' is not a field or lookup of ${ct}.${f.name} (in '${key}').`);
  return leaf(f, f.columns[0], lookup, raw, where, db);
}

/** A constraint object in Django's syntax as one condition (every key holds), or a LookupProblem naming the first key that is not. */
export function compileLookups(entry: ModelEntry, constraint: Record<string, unknown>, db: Knex): Condition {
  const conditions = Object.entries(constraint).map(([key, value]) => compileKey(entry, key.split('__'), value, key, db));
  return (qb, d) => { for (const c of conditions) c(qb, d); };
}
