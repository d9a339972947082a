/**
 * Creates, updates and deletes, one element or many, always inside the caller's transaction:
 * every element is validated and every error collected before anything is written, relations are
 * resolved in batches, and rows are written set-wise. Any error aborts the whole request.
 */
import type { Knex } from 'knex';
import { randomBytes } from 'node:crypto';
import { errors, ErrorCollector, type FieldErrors } from '../core/errors.js';
import { parseNetwork, networkText } from '../core/ipnet.js';
import { choiceSet, hooksOf, model, modelList, type Row, type WriteItem } from './registry.js';
import type { FieldDefinition, ModelEntry } from '../core/types.js';
import { hashPassword, keyDigest } from '../core/secrets.js';
import type { User } from '../auth/authenticate.js';
import { checkSharedRelations } from './shared-relations.js';
import { instantiateTemplates } from './templates.js';
import { treeAfterCreate, treeAfterUpdate, checkTreeParent } from './tree.js';
import { applyCustomFields, customFieldsFor, type CustomFieldDef } from './customfields.js';
import { naturalKey } from './natural.js';
import { beforeDelete, recordDeletes, recordWrites, snapshots, type ChangeContext } from './changes.js';
import { checkRollups, parentsOf, refreshRollups, rollupsFedBy } from './rollups.js';

/** Everything a write needs to know about its request; `db` is the request's transaction. */
export interface WriteContext extends ChangeContext {
  db: Knex;
  user: User | null;
  now: string;
}

interface Ref {
  item: number;
  field: string;
  target: string;
  value: unknown;
  /** column to set, or m2m/tags list to fill */
  apply: (id: number) => void;
}

const CHUNK = 500;

function describe(value: unknown): string {
  return JSON.stringify(value);
}

/** Validates one input value of a scalar field; returns the column value or records an error. */
function scalarValue(f: FieldDefinition, value: unknown, errs: ErrorCollector): unknown {
  const fail = (message: string) => { errs.add(f.name, message); return undefined; };
  if (value === null) {
    if (f.type === 'choice' && f.blank) return '';
    return f.nullable ? null : fail('This field may not be null.');
  }
  switch (f.type) {
    case 'string': case 'text': case 'slug': case 'color': case 'mac': case 'password': {
      if (typeof value !== 'string' && typeof value !== 'number') return fail('Not a valid string.');
      let s = String(value);
      if (f.type !== 'text' && f.type !== 'password') s = s.trim();
      if (s === '') {
        if (f.required) return fail('This field may not be blank.');
        return f.nullable ? null : '';
      }
      if (f.maxLength && s.length > f.maxLength) return fail(`Ensure this field has no more than ${f.maxLength} characters.`);
      if (f.type === 'slug' && !/^[-a-zA-Z0-9_]+$/.test(s)) return fail('Enter a valid "slug" consisting of letters, numbers, underscores or hyphens.');
      if (f.type === 'color' && !/^[0-9a-f]{6}$/.test(s)) return fail('Enter a valid hexadecimal RGB color code.');
      if (f.type === 'mac') {
        const hex = s.replace(/[^0-9a-fA-F]/g, '');
        if (hex.length !== 12 || !/^[0-9a-fA-F]{2}([-:.]?[0-9a-fA-F]{2}){5}$|^[0-9a-fA-F]{4}\.[0-9a-fA-F]{4}\.[0-9a-fA-F]{4}$/.test(s)) return fail(`'${s}' is not a valid MAC address.`);
        s = hex.toUpperCase().match(/../g)!.join(':');
      }
      if (f.pattern && !new RegExp(f.pattern).test(s)) return fail('Enter a valid value.');
      return s;
    }
    case 'integer': {
      const n = typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value;
      if (typeof n !== 'number' || !Number.isInteger(n)) return fail('A valid integer is required.');
      if (f.minValue !== undefined && n < f.minValue) return fail(`Ensure this value is greater than or equal to ${f.minValue}.`);
      if (f.maxValue !== undefined && n > f.maxValue) return fail(`Ensure this value is less than or equal to ${f.maxValue}.`);
      return n;
    }
    case 'decimal': {
      const n = typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : value;
      if (typeof n !== 'number' || !Number.isFinite(n)) return fail('A valid number is required.');
      if (f.minValue !== undefined && n < f.minValue) return fail(`Ensure this value is greater than or equal to ${f.minValue}.`);
      if (f.maxValue !== undefined && n > f.maxValue) return fail(`Ensure this value is less than or equal to ${f.maxValue}.`);
      if (f.decimalPlaces !== undefined && Math.round(n * 10 ** f.decimalPlaces) / 10 ** f.decimalPlaces !== n) return fail(`Ensure that there are no more than ${f.decimalPlaces} decimal places.`);
      if (f.maxDigits !== undefined && f.decimalPlaces !== undefined && Math.abs(n) >= 10 ** (f.maxDigits - f.decimalPlaces)) return fail(`Ensure that there are no more than ${f.maxDigits - f.decimalPlaces} digits before the decimal point.`);
      return n;
    }
    case 'boolean': {
      if (typeof value === 'boolean') return value;
      if (value === 1 || value === 0) return value === 1;
      if (typeof value === 'string' && /^(true|false|1|0)$/i.test(value)) return /^(true|1)$/i.test(value);
      return fail('Must be a valid boolean.');
    }
    case 'date': {
      if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(Date.parse(value))) return fail('Date has wrong format. Use one of these formats instead: YYYY-MM-DD.');
      return value;
    }
    case 'datetime': {
      if (typeof value !== 'string' || Number.isNaN(Date.parse(value)) || !/^\d{4}-\d{2}-\d{2}/.test(value)) return fail('Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].');
      return new Date(value).toISOString();
    }
    case 'json': return JSON.stringify(value);
    case 'choice': {
      const set = choiceSet(f.choices!);
      let v: unknown = value;
      if (set.integer && typeof v === 'string' && /^\d+$/.test(v)) v = Number(v);
      if (v === '' && f.blank) return '';
      if (typeof v === 'object') return fail(`${describe(value)} is not a valid choice.`);
      if (!set.choices.some((c) => c.value === v)) return fail(`${String(value)} is not a valid choice.`);
      return v;
    }
    default: return value;
  }
}

/** Everything one element will write once validation passes. */
interface Prepared extends WriteItem {
  tags?: number[];
  m2m: Record<string, number[]>;
  customFields?: Record<string, unknown>;
}

function prepareItem(entry: ModelEntry, input: Record<string, unknown>, existing: Row | null, mode: 'create' | 'put' | 'patch', refs: Ref[], index: number, now: string, customFields: CustomFieldDef[]): Prepared {
  const d = entry.definition;
  const item: Prepared = { input, values: {}, existing, errors: new ErrorCollector(), reveal: {}, id: existing ? Number(existing.id) : null, m2m: {} };
  const { values, errors: errs } = item;
  // An alias writes its target (device_role → role) unless the target itself is given.
  const given = (f: FieldDefinition): [boolean, unknown] => {
    if (f.name in input) return [true, input[f.name]];
    const alias = Object.values(d.fields).find((a) => a.type === 'alias' && a.of === f.name && a.name in input);
    return alias ? [true, input[alias.name]] : [false, undefined];
  };
  for (const f of Object.values(d.fields)) {
    if (f.type === 'alias' || f.type === 'computed') continue;
    if (f.readOnly) {
      if (mode === 'create' && f.type === 'datetime') values[f.columns[0]] = now;
      continue;
    }
    const [has, value] = given(f);
    if (!has) {
      if (f.type === 'generic_fk' && (f.typeKey! in input || `${f.name}_id` in input)) {
        // handled below
      } else if (mode === 'patch' || (mode === 'put' && !f.required)) continue;
      else if (mode === 'put' || f.required) {
        if (f.type !== 'token_key') { errs.add(f.name, 'This field is required.'); continue; }
      }
    }
    switch (f.type) {
      case 'fk': {
        if (!has) { values[f.columns[0]] = null; break; }
        if (value === null) { if (f.nullable) values[f.columns[0]] = null; else errs.add(f.name, 'This field may not be null.'); break; }
        refs.push({ item: index, field: f.name, target: f.to!, value, apply: (id) => { values[f.columns[0]] = id; } });
        break;
      }
      case 'm2m': {
        if (!has) break;
        if (!Array.isArray(value)) { errs.add(f.name, `Expected a list of items but got type "${typeof value}".`); break; }
        item.m2m[f.name] = [];
        for (const v of value) refs.push({ item: index, field: f.name, target: f.to!, value: v, apply: (id) => { item.m2m[f.name].push(id); } });
        break;
      }
      case 'generic_fk': {
        // the API names the type half typeKey; the column is <name>_type
        const typeKey = f.typeKey!;
        const idKey = `${f.name}_id`;
        const typeColumn = `${f.name}_type`;
        if (!(typeKey in input) && !(idKey in input)) {
          if (mode === 'create') { values[typeColumn] = null; values[idKey] = null; }
          break;
        }
        // An explicit null clears; a missing half keeps the stored value on PATCH.
        const type = typeKey in input ? input[typeKey] : mode === 'patch' ? existing?.[typeColumn] : null;
        const id = idKey in input ? input[idKey] : mode === 'patch' ? existing?.[idKey] : null;
        if (type === null && id === null) { values[typeColumn] = null; values[idKey] = null; break; }
        if (type === null || type === undefined) { errs.add(typeKey, 'This field cannot be null.'); break; }
        if (id === null || id === undefined) { errs.add(idKey, 'This field cannot be null.'); break; }
        const target = f.types![String(type)];
        if (!target) { errs.add(typeKey, `"${String(type)}" is not a valid choice.`); break; }
        const numeric = typeof id === 'string' && /^\d+$/.test(id) ? Number(id) : id;
        if (typeof numeric !== 'number' || !Number.isInteger(numeric)) { errs.add(idKey, 'A valid integer is required.'); break; }
        values[typeColumn] = type;
        refs.push({ item: index, field: idKey, target, value: numeric, apply: (rid) => { values[idKey] = rid; } });
        break;
      }
      case 'ip_prefix': case 'ip_address': {
        if (typeof value !== 'string') { errs.add(f.name, 'Enter a valid IPv4 or IPv6 address with optional mask.'); break; }
        const n = parseNetwork(value);
        if (!n) { errs.add(f.name, `'${value}' is not a valid ${f.type === 'ip_prefix' ? 'prefix' : 'IP address'}.`); break; }
        if (n.length === 0) { errs.add(f.name, `Cannot create ${f.type === 'ip_prefix' ? 'prefix' : 'IP address'} with /0 mask.`); break; }
        if (f.type === 'ip_prefix' && n.hostBitsSet) { errs.add(f.name, `${value} is not a valid prefix. Did you mean ${networkText(n)}?`); break; }
        values[f.columns[0]] = f.type === 'ip_prefix' ? networkText(n) : n.text;
        if (f.type === 'ip_address') values[`${f.name}_host`] = n.host;
        values[`${f.name}_first`] = n.first;
        values[`${f.name}_last`] = n.last;
        values[`${f.name}_length`] = n.length;
        values.family = n.family;
        break;
      }
      case 'password': {
        const v = scalarValue(f, value, errs);
        if (typeof v === 'string') values[f.columns[0]] = hashPassword(v);
        break;
      }
      case 'token_key': {
        let key: string;
        if (has && value !== null && value !== '') {
          if (typeof value !== 'string' || !/^[0-9a-fA-F]{40}$/.test(value)) { errs.add(f.name, 'Ensure this field has exactly 40 hexadecimal characters.'); break; }
          key = value.toLowerCase();
        } else if (mode === 'create') key = randomBytes(20).toString('hex');
        else break;
        values[f.columns[0]] = keyDigest(key);
        values[f.columns[1]] = '*'.repeat(34) + key.slice(-6);
        item.reveal[f.name] = key;
        break;
      }
      default: {
        if (!has) {
          if (f.default !== undefined) values[f.columns[0]] = f.type === 'json' ? JSON.stringify(f.default) : f.default;
          else values[f.columns[0]] = f.nullable ? null : f.type === 'boolean' ? false : f.type === 'choice' || f.type === 'string' || f.type === 'text' ? '' : null;
          break;
        }
        const v = scalarValue(f, value, errs);
        if (v !== undefined) values[f.columns[0]] = v;
      }
    }
  }
  if (d.tags && 'tags' in input) {
    const tags = input.tags;
    if (!Array.isArray(tags)) errs.add('tags', `Expected a list of items but got type "${typeof tags}".`);
    else {
      item.tags = [];
      for (const t of tags) refs.push({ item: index, field: 'tags', target: 'Tag', value: t, apply: (id) => { if (!item.tags!.includes(id)) item.tags!.push(id); } });
    }
  }
  if (d.customFields) {
    const stored = existing?.custom_field_data ? JSON.parse(existing.custom_field_data) : null;
    const ref = (target: string, value: unknown, apply: (id: number) => void) => refs.push({ item: index, field: 'custom_fields', target, value, apply });
    item.customFields = applyCustomFields(customFields, stored, input.custom_fields, mode === 'create', errs, ref) ?? undefined;
  }
  // Naturally ordered names keep their sort key beside them.
  for (const f of Object.values(d.fields)) if (f.natural && f.columns[0] in values) values[f.columns[1]] = naturalKey(values[f.columns[0]] as string | null);
  if (d.timestamps) {
    if (mode === 'create') values.created = now;
    values.last_updated = now;
  }
  return item;
}

/** Finds the one object an attribute dictionary names (nested dictionaries follow relations). */
async function resolveByAttributes(db: Knex, targetName: string, attrs: Record<string, unknown>): Promise<{ id?: number; error?: string }> {
  const target = model(targetName);
  const q = db(target.definition.table).select('id').limit(2);
  for (const [key, value] of Object.entries(attrs)) {
    const f = target.definition.fields[key === 'device_role' ? 'role' : key] ?? (key === 'id' ? { columns: ['id'], type: 'integer' } as unknown as FieldDefinition : undefined);
    if (!f || !f.columns.length) return { error: `Related object not found using the provided attributes: ${describe(attrs)}` };
    if (f.type === 'fk' && value !== null && typeof value === 'object') {
      const inner = await resolveByAttributes(db, f.to!, value as Record<string, unknown>);
      if (inner.error) return inner;
      q.where(f.columns[0], inner.id!);
    } else if (value === null) q.whereNull(f.columns[0]);
    else if (f.type === 'ip_prefix' || f.type === 'ip_address') {
      const n = parseNetwork(String(value));
      if (!n) return { error: `Related object not found using the provided attributes: ${describe(attrs)}` };
      q.where(f.columns[0], f.type === 'ip_prefix' ? networkText(n) : n.text);
    } else if (typeof value === 'object') return { error: `Related object not found using the provided attributes: ${describe(attrs)}` };
    else if ((f.type === 'integer' || f.columns[0] === 'id') && !/^-?\d+$/.test(String(value))) return { error: `Related object not found using the provided attributes: ${describe(attrs)}` };
    else q.where(f.columns[0], value as string | number);
  }
  const rows = await q;
  if (rows.length === 0) return { error: `Related object not found using the provided attributes: ${describe(attrs)}` };
  if (rows.length > 1) return { error: `Multiple objects match the provided attributes: ${describe(attrs)}` };
  return { id: Number(rows[0].id) };
}

/** Resolves every relation of the request: ids in one query per target model, attribute sets once each. */
async function resolveRefs(db: Knex, refs: Ref[], items: Prepared[]): Promise<void> {
  const byTarget = new Map<string, Set<number>>();
  const byAttrs = new Map<string, { id?: number; error?: string }>();
  for (const ref of refs) {
    const v = ref.value;
    const numeric = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : null;
    if (numeric !== null) {
      if (!byTarget.has(ref.target)) byTarget.set(ref.target, new Set());
      byTarget.get(ref.target)!.add(numeric);
    }
  }
  const existing = new Map<string, Set<number>>();
  for (const [target, ids] of byTarget) {
    const found = new Set<number>();
    const list = [...ids];
    for (let i = 0; i < list.length; i += CHUNK) {
      for (const r of await db(model(target).definition.table).select('id').whereIn('id', list.slice(i, i + CHUNK))) found.add(Number(r.id));
    }
    existing.set(target, found);
  }
  for (const ref of refs) {
    const v = ref.value;
    const errs = items[ref.item].errors;
    const numeric = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : null;
    if (numeric !== null) {
      if (existing.get(ref.target)!.has(numeric)) ref.apply(numeric);
      else errs.add(ref.field, `Related object not found using the provided numeric ID: ${numeric}`);
    } else if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      const key = `${ref.target}:${JSON.stringify(v)}`;
      if (!byAttrs.has(key)) byAttrs.set(key, await resolveByAttributes(db, ref.target, v as Record<string, unknown>));
      const found = byAttrs.get(key)!;
      if (found.error) errs.add(ref.field, found.error);
      else ref.apply(found.id!);
    } else if (ref.target === 'Tag' && typeof v === 'string') {
      const key = `Tag:slug:${v}`;
      if (!byAttrs.has(key)) byAttrs.set(key, await resolveByAttributes(db, 'Tag', { slug: v }));
      const found = byAttrs.get(key)!;
      if (found.error) errs.add(ref.field, found.error);
      else ref.apply(found.id!);
    } else errs.add(ref.field, `Incorrect type. Expected pk value, received ${typeof v}.`);
  }
}

/** Unique fields and unique_together groups, against stored rows and within the request. */
async function checkUnique(db: Knex, entry: ModelEntry, items: Prepared[]): Promise<void> {
  const d = entry.definition;
  const finalRow = (item: Prepared) => ({ ...(item.existing ?? {}), ...item.values });
  const label = d.verboseName.charAt(0).toUpperCase() + d.verboseName.slice(1);
  for (const f of Object.values(d.fields)) {
    if (!f.unique && !f.uniqueCi && f.type !== 'token_key') continue;
    const column = f.columns[0];
    const relevant = items.filter((i) => column in i.values && i.values[column] !== null && i.values[column] !== '');
    if (!relevant.length) continue;
    const norm = (v: unknown) => (f.uniqueCi ? String(v).toLowerCase() : v);
    const values = [...new Set(relevant.map((i) => norm(i.values[column])))];
    const taken = new Map<unknown, number>();
    for (let i = 0; i < values.length; i += CHUNK) {
      const q = db(d.table).select('id', column);
      if (f.uniqueCi) q.whereRaw(`lower(??) in (${values.slice(i, i + CHUNK).map(() => '?').join(',')})`, [column, ...values.slice(i, i + CHUNK) as string[]]);
      else q.whereIn(column, values.slice(i, i + CHUNK) as string[]);
      for (const r of await q) taken.set(norm(r[column]), Number(r.id));
    }
    const seen = new Map<unknown, Prepared>();
    for (const item of relevant) {
      const v = norm(item.values[column]);
      const owner = taken.get(v);
      const message = f.type === 'token_key' ? 'A token with this key already exists.' : `${label} with this ${f.label.toLowerCase()} already exists.`;
      if ((owner !== undefined && owner !== item.id) || (seen.has(v) && seen.get(v) !== item)) item.errors.add(f.name, message);
      seen.set(v, item);
    }
  }
  for (const group of d.uniqueTogether) {
    // A natural name's sort key is not part of the key.
    const columns = group.flatMap((name) => { const f = d.fields[name]; return f.natural ? [f.columns[0]] : f.columns; });
    // A null counts as a value only in the fields the schema names (top-level rows among themselves).
    const nullable = new Set(group.filter((name) => d.uniqueNullsMatch.includes(name)).flatMap((name) => d.fields[name].columns));
    const relevant = items.filter((i) => columns.some((c) => c in i.values)).filter((i) => columns.every((c) => nullable.has(c) || (finalRow(i)[c] !== null && finalRow(i)[c] !== undefined)));
    if (!relevant.length) continue;
    const key = (row: Row) => JSON.stringify(columns.map((c) => row[c] ?? null));
    const taken = new Map<string, number>();
    for (let i = 0; i < relevant.length; i += 200) {
      const q = db(d.table).select('id', ...columns).where((w) => {
        for (const item of relevant.slice(i, i + 200)) w.orWhere((x) => { for (const c of columns) { const v = finalRow(item)[c]; if (v === null || v === undefined) x.whereNull(c); else x.where(c, v); } });
      });
      for (const r of await q) taken.set(key(r), Number(r.id));
    }
    const seen = new Set<string>();
    for (const item of relevant) {
      const k = key(finalRow(item));
      const owner = taken.get(k);
      if ((owner !== undefined && owner !== item.id) || seen.has(k)) item.errors.add('non_field_errors', `The fields ${group.join(', ')} must make a unique set.`);
      seen.add(k);
    }
  }
}

function raise(items: Prepared[], bulk: boolean): void {
  if (items.every((i) => i.errors.empty)) return;
  if (!bulk) throw errors.validation(items[0].errors.errors);
  throw errors.validation(items.map((i) => i.errors.errors as FieldErrors));
}

async function writeAssignments(db: Knex, entry: ModelEntry, items: Prepared[]): Promise<void> {
  const d = entry.definition;
  const withTags = items.filter((i) => i.tags);
  if (withTags.length) {
    await db('extras_taggeditem').where('content_type', d.contentType).whereIn('object_id', withTags.map((i) => i.id!)).delete();
    const rows = withTags.flatMap((i) => i.tags!.map((tag) => ({ tag_id: tag, content_type: d.contentType, object_id: i.id! })));
    for (let i = 0; i < rows.length; i += CHUNK) await db('extras_taggeditem').insert(rows.slice(i, i + CHUNK));
  }
  for (const f of Object.values(d.fields).filter((x) => x.type === 'm2m')) {
    const touched = items.filter((i) => i.m2m[f.name]);
    if (!touched.length) continue;
    await db(f.through!).whereIn('from_id', touched.map((i) => i.id!)).delete();
    const rows = touched.flatMap((i) => [...new Set(i.m2m[f.name])].map((to) => ({ from_id: i.id!, to_id: to })));
    for (let i = 0; i < rows.length; i += CHUNK) await db(f.through!).insert(rows.slice(i, i + CHUNK));
  }
}

function asObjects(inputs: unknown[], bulk: boolean): Record<string, unknown>[] {
  const bad = inputs.findIndex((i) => i === null || typeof i !== 'object' || Array.isArray(i));
  if (bad >= 0) {
    const message = { non_field_errors: ['Invalid data. Expected a dictionary, but got ' + (Array.isArray(inputs[bad]) ? 'list' : typeof inputs[bad]) + '.'] };
    throw errors.validation(bulk ? inputs.map((_, i) => (i === bad ? message : {})) : message);
  }
  return inputs as Record<string, unknown>[];
}

async function runHooks(entry: ModelEntry, items: Prepared[], ctx: WriteContext): Promise<void> {
  for (const item of items) if (item.customFields) item.values.custom_field_data = JSON.stringify(item.customFields);
  for (const hook of hooksOf(entry)) {
    if (!hook.prepare) continue;
    for (const item of items) if (item.errors.empty) await hook.prepare(item, { db: ctx.db, entry, user: ctx.user });
  }
  for (const hook of hooksOf(entry)) {
    if (hook.prepareMany) await hook.prepareMany(items.filter((i) => i.errors.empty), { db: ctx.db, entry, user: ctx.user });
  }
}

async function afterWrite(entry: ModelEntry, items: Prepared[], ctx: WriteContext): Promise<void> {
  const hooks = hooksOf(entry).filter((h) => h.afterWrite);
  if (!hooks.length) return;
  const rows = await ctx.db(entry.definition.table).whereIn('id', items.map((i) => i.id!));
  for (const hook of hooks) await hook.afterWrite!(rows, { db: ctx.db, entry, items });
}

export interface WriteResult {
  ids: number[];
  reveal: Map<number, Record<string, unknown>>;
  /** representations rendered for the change capture, reused by the response (null when not captured) */
  data: Map<number, Record<string, unknown>> | null;
}

export async function createObjects(entry: ModelEntry, inputs: unknown[], bulk: boolean, ctx: WriteContext): Promise<WriteResult> {
  const { db } = ctx;
  const objects = asObjects(inputs, bulk);
  const refs: Ref[] = [];
  const customFields = await customFieldsFor(db, entry);
  const items = objects.map((input, i) => prepareItem(entry, input, null, 'create', refs, i, ctx.now, customFields));
  await resolveRefs(db, refs, items);
  await checkSharedRelations(db, entry, items);
  await runHooks(entry, items, ctx);
  if (entry.definition.tree) await checkTreeParent(db, entry, items);
  await checkUnique(db, entry, items);
  await checkRollups(db, entry, items);
  raise(items, bulk);
  const table = entry.definition.table;
  for (let i = 0; i < items.length; i += CHUNK) {
    const chunk = items.slice(i, i + CHUNK);
    const ids = await db(table).insert(chunk.map((item) => item.values)).returning('id');
    ids.forEach((r: { id: number } | number, j: number) => { chunk[j].id = Number(typeof r === 'object' ? r.id : r); });
  }
  if (entry.definition.tree) await treeAfterCreate(db, entry, items.map((i) => i.id!));
  await writeAssignments(db, entry, items);
  await instantiateTemplates(ctx, entry, items, bulk);
  const ids = items.map((i) => i.id!);
  await afterWrite(entry, items, ctx);
  await refreshRollups(db, parentsOf(entry, items.map((i) => i.values)));
  const data = await recordWrites(ctx, entry, 'create', ids, null);
  return { ids, reveal: new Map(items.map((i) => [i.id!, i.reveal])), data };
}

export async function updateObjects(entry: ModelEntry, inputs: unknown[], partial: boolean, bulk: boolean, ctx: WriteContext, scope?: (qb: Knex.QueryBuilder) => void): Promise<WriteResult> {
  const { db } = ctx;
  const objects = asObjects(inputs, bulk);
  const ids = objects.map((o) => o.id);
  const missingId = ids.findIndex((id) => !(typeof id === 'number' || (typeof id === 'string' && /^\d+$/.test(id))));
  if (missingId >= 0) {
    const message = { id: ['This field is required.'] };
    throw errors.validation(bulk ? objects.map((_, i) => (i === missingId ? message : {})) : message);
  }
  const q = db(entry.definition.table).whereIn('id', ids.map(Number));
  scope?.(q);
  const rows = new Map<number, Row>((await q).map((r: Row) => [Number(r.id), r]));
  const notFound = ids.findIndex((id) => !rows.has(Number(id)));
  if (notFound >= 0) {
    if (!bulk) throw errors.notFound();
    throw errors.validation(objects.map((_, i) => (i === notFound ? { id: [`Object with id ${ids[i]} does not exist.`] } : {})));
  }
  const refs: Ref[] = [];
  const customFields = await customFieldsFor(db, entry);
  const items = objects.map((input, i) => prepareItem(entry, input, rows.get(Number(ids[i]))!, partial ? 'patch' : 'put', refs, i, ctx.now, customFields));
  await resolveRefs(db, refs, items);
  await checkSharedRelations(db, entry, items);
  await runHooks(entry, items, ctx);
  if (entry.definition.tree) await checkTreeParent(db, entry, items);
  await checkUnique(db, entry, items);
  await checkRollups(db, entry, items);
  raise(items, bulk);
  const prechange = entry.definition.changelog ? await snapshots(db, entry, items.map((i) => i.id!)) : null;
  // Elements that change the same columns to the same values share one UPDATE.
  const groups = new Map<string, { values: Row; ids: number[] }>();
  for (const item of items) {
    const key = JSON.stringify(Object.entries(item.values).map(([k, v]) => [k, Buffer.isBuffer(v) ? v.toString('hex') : v]));
    const group = groups.get(key) ?? { values: item.values, ids: [] };
    group.ids.push(item.id!);
    groups.set(key, group);
  }
  for (const { values, ids: groupIds } of groups.values()) {
    if (Object.keys(values).length) await db(entry.definition.table).whereIn('id', groupIds).update(values);
  }
  if (entry.definition.tree) await treeAfterUpdate(db, entry, items.map((i) => ({ id: i.id!, before: i.existing! })));
  await writeAssignments(db, entry, items);
  const changed = items.map((i) => i.id!);
  await afterWrite(entry, items, ctx);
  // parents before and after: a row may have moved from one to another
  await refreshRollups(db, parentsOf(entry, items.flatMap((i) => [i.existing!, { ...i.existing, ...i.values }])));
  const data = await recordWrites(ctx, entry, 'update', changed, prechange);
  return { ids: changed, reveal: new Map(items.map((i) => [i.id!, i.reveal])), data };
}

/** Every object a delete removes, following cascading fks, by model. */
async function cascadeClosure(db: Knex, entry: ModelEntry, ids: number[]): Promise<Map<string, Set<number>>> {
  const closure = new Map<string, Set<number>>([[entry.definition.name, new Set(ids)]]);
  let frontier: [string, number[]][] = [[entry.definition.name, ids]];
  while (frontier.length) {
    const next: [string, number[]][] = [];
    for (const [name, list] of frontier) {
      for (const other of modelList) {
        for (const f of Object.values(other.definition.fields)) {
          if (f.type !== 'fk' || f.to !== name || f.onDelete !== 'cascade') continue;
          const rows = await db(other.definition.table).select('id').whereIn(f.columns[0], list);
          const set = closure.get(other.definition.name) ?? new Set<number>();
          const fresh = rows.map((r: Row) => Number(r.id)).filter((id: number) => !set.has(id));
          fresh.forEach((id: number) => set.add(id));
          closure.set(other.definition.name, set);
          if (fresh.length) next.push([other.definition.name, fresh]);
        }
      }
    }
    frontier = next;
  }
  return closure;
}

export async function deleteObjects(entry: ModelEntry, inputs: unknown[], bulk: boolean, ctx: WriteContext, scope?: (qb: Knex.QueryBuilder) => void): Promise<number[]> {
  const { db } = ctx;
  const ids = inputs.map((i) => (typeof i === 'object' && i !== null ? (i as Row).id : i));
  const bad = ids.findIndex((id) => !(typeof id === 'number' || (typeof id === 'string' && /^\d+$/.test(id))));
  if (bad >= 0) throw errors.validation(bulk ? ids.map((_, i) => (i === bad ? { id: ['This field is required.'] } : {})) : { id: ['This field is required.'] });
  const wanted = [...new Set(ids.map(Number))];
  const q = db(entry.definition.table).select('id').whereIn('id', wanted);
  scope?.(q);
  const found = new Set((await q).map((r: Row) => Number(r.id)));
  const missing = wanted.find((id) => !found.has(id));
  if (missing !== undefined) {
    if (!bulk) throw errors.notFound();
    throw errors.validation(ids.map((id) => (Number(id) === missing ? { id: [`Object with id ${missing} does not exist.`] } : {})));
  }
  const closure = await cascadeClosure(db, entry, wanted);
  // Objects outside the deleted set that protect one inside it block the delete (409).
  const dependents: string[] = [];
  let total = 0;
  for (const [name, set] of closure) {
    for (const other of modelList) {
      for (const f of Object.values(other.definition.fields)) {
        if (f.type !== 'fk' || f.to !== name || f.onDelete !== 'protect') continue;
        const inside = closure.get(other.definition.name) ?? new Set<number>();
        const rows = (await db(other.definition.table).select('*').whereIn(f.columns[0], [...set])).filter((r: Row) => !inside.has(Number(r.id)));
        total += rows.length;
        for (const r of rows.slice(0, 10)) dependents.push(`${other.definition.verboseName} ${r[other.definition.lookup] ?? r.name ?? ''} (${r.id})`.replace('  ', ' '));
      }
    }
  }
  if (total) throw errors.protectedDelete(dependents.slice(0, 10), total);
  const doomed = [];
  for (const [name, set] of closure) doomed.push(await beforeDelete(ctx, model(name), [...set]));
  for (const [name, set] of closure) {
    for (const hook of hooksOf(model(name))) if (hook.beforeDelete) await hook.beforeDelete([...set], { db, entry: model(name), closure });
  }
  // Generic relations have no database constraint: clear (or delete, or keep) the ones pointing at deleted objects.
  for (const [name, set] of closure) {
    const ct = model(name).definition.contentType;
    for (const other of modelList) {
      for (const f of Object.values(other.definition.fields)) {
        if (f.type !== 'generic_fk' || !Object.keys(f.types!).includes(ct) || f.onDelete === 'keep') continue;
        const pointing = db(other.definition.table).where(`${f.name}_type`, ct).whereIn(`${f.name}_id`, [...set]);
        if (f.onDelete === 'cascade') await pointing.delete();
        else await pointing.update({ [`${f.name}_type`]: null, [`${f.name}_id`]: null });
      }
    }
    if (model(name).definition.tags) await db('extras_taggeditem').where('content_type', ct).whereIn('object_id', [...set]).delete();
  }
  const fed = [];
  for (const [name, set] of closure) if (rollupsFedBy(model(name)).length) fed.push(parentsOf(model(name), await db(model(name).definition.table).whereIn('id', [...set])));
  for (let i = 0; i < wanted.length; i += CHUNK) await db(entry.definition.table).whereIn('id', wanted.slice(i, i + CHUNK)).delete();
  for (const parents of fed) await refreshRollups(db, parents);
  await recordDeletes(ctx, doomed);
  return wanted;
}

