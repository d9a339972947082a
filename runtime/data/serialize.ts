/**
 * Rows → JSON representations, in a fixed number of queries whatever the page size: related rows
 * are loaded in batches (one query per model per level of nesting), then tags, many-to-many
 * fields, counts and computed fields take one query each for the whole page.
 */
import type { Knex } from 'knex';
import { choiceSet, hooksOf, model, modelList, storedField, type Row } from './registry.js';
import type { FieldDefinition, ModelEntry } from '../core/types.js';
import { splitPath } from '../core/paths.js';
import { reverseIds, reverseSource } from './reverse.js';
import { customFieldTargets, customFieldsFor, renderCustomFields, type CustomFieldDef } from './customfields.js';

/** Page sizes stay far below this; it only guards the database's bound-parameter limit. */
const CHUNK = 5000;

export interface RenderOptions {
  db: Knex;
  baseUrl: string;
  brief?: boolean;
  exclude?: string[];
  /** values shown once, e.g. a token key in the response that creates it: id → field → value */
  reveal?: Map<number, Record<string, unknown>>;
}

/** Rows of every model touched while rendering one response, loaded level by level. */
class RowCache {
  private rows = new Map<string, Map<number, Row>>();
  private pending = new Map<string, Set<number>>();
  constructor(private db: Knex) {}

  add(name: string, rows: Row[]): void {
    const map = this.rows.get(name) ?? new Map<number, Row>();
    for (const row of rows) map.set(Number(row.id), row);
    this.rows.set(name, map);
  }

  need(name: string, id: unknown): void {
    if (id === null || id === undefined) return;
    const n = Number(id);
    if (this.rows.get(name)?.has(n)) return;
    let set = this.pending.get(name);
    if (!set) this.pending.set(name, (set = new Set()));
    set.add(n);
  }

  get(name: string, id: unknown): Row | undefined {
    return id === null || id === undefined ? undefined : this.rows.get(name)?.get(Number(id));
  }

  /** Loads everything pending; newly loaded rows ask for their own nested relations. */
  async resolve(): Promise<void> {
    while (this.pending.size) {
      const batch = [...this.pending];
      this.pending.clear();
      for (const [name, ids] of batch) {
        const entry = model(name);
        const list = [...ids];
        const loaded: Row[] = [];
        for (let i = 0; i < list.length; i += CHUNK) {
          loaded.push(...(await this.db(entry.definition.table).whereIn('id', list.slice(i, i + CHUNK))));
        }
        this.add(name, loaded);
        for (const row of loaded) for (const [target, column] of followOf(entry)) this.need(target, row[column]);
        for (const row of loaded) needGeneric(this, entry, row, [...entry.serializer.nested, ...displayRoots(entry)]);
      }
    }
  }
}

/** Relations to load whenever a row of a model is loaded: its nested fks and what displays need. */
const follow = new Map<string, [string, string][]>();
function followOf(entry: ModelEntry): [string, string][] {
  if (!follow.size) computeFollow();
  return follow.get(entry.definition.name) ?? [];
}

function computeFollow(): void {
  const add = (name: string, field: FieldDefinition) => {
    const list = follow.get(name) ?? [];
    if (field.type === 'fk' && !list.some(([, c]) => c === field.columns[0])) list.push([field.to!, field.columns[0]]);
    follow.set(name, list);
  };
  for (const entry of modelList) {
    const d = entry.definition;
    follow.set(d.name, follow.get(d.name) ?? []);
    for (const name of entry.serializer.nested) {
      const f = d.fields[name];
      if (f) add(d.name, storedField(entry, f));
    }
    for (const template of d.display) {
      for (const [, path] of template.matchAll(/\{([^}]+)\}/g)) {
        let current = entry;
        for (const part of splitPath(path).slice(0, -1)) {
          const f = current.definition.fields[part];
          add(current.definition.name, f);
          current = model(f.to!);
        }
      }
    }
  }
}

/** Fields the display templates start from (a generic relation named alone shows its target). */
function displayRoots(entry: ModelEntry): string[] {
  return entry.definition.display.flatMap((t) => [...t.matchAll(/\{(\w+)\}/g)].map((m) => m[1]));
}

/** Queues the targets of the generic relations among `fields`. */
function needGeneric(cache: RowCache, entry: ModelEntry, row: Row, fields: string[]): void {
  for (const name of fields) {
    const f = entry.definition.fields[name];
    if (f?.type === 'generic_fk') {
      const target = f.types![row[`${name}_type`]];
      if (target) cache.need(target, row[`${name}_id`]);
    }
  }
}

/** A model's display function, when one of its hooks computes the display (not a template). */
const displayHooks = new Map<string, ((row: Row) => string) | null>();
function displayHook(entry: ModelEntry): ((row: Row) => string) | null {
  if (!displayHooks.has(entry.definition.name)) displayHooks.set(entry.definition.name, hooksOf(entry).find((h) => h.display)?.display ?? null);
  return displayHooks.get(entry.definition.name)!;
}

function isBlank(v: unknown): boolean {
  return v === null || v === undefined || v === '';
}

function scalar(field: FieldDefinition, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (field.type) {
    case 'integer': case 'decimal': return Number(value);
    case 'boolean': return value === true || value === 1 || value === '1' || value === 't';
    case 'json': return typeof value === 'string' ? JSON.parse(value) : value;
    default: return value;
  }
}

/** Another object inside a computed value, rendered in its nested form (see ComputedContext.refer). */
class Reference {
  constructor(readonly model: string, readonly id: unknown, readonly extra?: Record<string, unknown>) {}
}

export class Renderer {
  readonly cache: RowCache;
  private extras = new Map<string, Map<number, unknown>>();
  private tags = new Map<number, Row[]>();
  private m2m = new Map<string, Map<number, number[]>>();
  private customFields: CustomFieldDef[] = [];

  constructor(private entry: ModelEntry, private options: RenderOptions) {
    this.cache = new RowCache(options.db);
  }

  private get fields(): string[] {
    const s = this.entry.serializer;
    const list = this.options.brief ? s.brief : s.full;
    const exclude = this.options.exclude ?? [];
    return list.filter((f) => !exclude.includes(f));
  }

  url(entry: ModelEntry, id: unknown): string {
    return `${this.options.baseUrl}/api/${entry.definition.app}/${entry.definition.endpoint}/${id}/`;
  }

  /** Loads everything the page's representations need. */
  async load(rows: Row[]): Promise<void> {
    const { db } = this.options;
    const d = this.entry.definition;
    const fields = this.fields;
    this.cache.add(d.name, rows);
    const ids = rows.map((r) => Number(r.id));
    for (const name of fields) {
      const raw = d.fields[name];
      if (!raw) continue;
      const f = storedField(this.entry, raw);
      if (f.type === 'fk') for (const row of rows) this.cache.need(f.to!, row[f.columns[0]]);
      if (f.type === 'm2m' && ids.length) {
        const links = await db(f.through!).select('from_id', 'to_id').whereIn('from_id', ids).orderBy('to_id');
        const map = new Map<number, number[]>();
        for (const l of links) {
          map.set(Number(l.from_id), [...(map.get(Number(l.from_id)) ?? []), Number(l.to_id)]);
          this.cache.need(f.to!, l.to_id);
        }
        this.m2m.set(name, map);
      }
    }
    for (const row of rows) for (const [target, column] of followOf(this.entry)) this.cache.need(target, row[column]);
    for (const row of rows) needGeneric(this.cache, this.entry, row, [...fields, ...displayRoots(this.entry)]);
    if (fields.includes('custom_fields') && d.customFields && rows.length) {
      this.customFields = await customFieldsFor(db, this.entry);
      customFieldTargets(this.customFields, rows, (target, id) => this.cache.need(target, id));
    }
    if (fields.includes('tags') && ids.length) {
      const tagTable = model('Tag').definition.table;
      const tagged = await db('extras_taggeditem as ti').join(`${tagTable} as t`, 't.id', 'ti.tag_id')
        .select('ti.object_id as _object_id', 't.*').where('ti.content_type', d.contentType).whereIn('ti.object_id', ids).orderBy('t.name');
      for (const t of tagged) this.tags.set(Number(t._object_id), [...(this.tags.get(Number(t._object_id)) ?? []), t]);
      // The joined rows are Tag rows: nested tags render from them like any nested object.
      this.cache.add('Tag', tagged);
    }
    for (const name of fields) {
      const count = d.counts[name];
      if (count && ids.length) this.extras.set(name, await countFor(db, this.entry, count.model, count.field, count.cumulative, ids));
    }
    for (const name of fields) {
      const f = d.fields[name];
      if (f?.type === 'computed' && f.source?.startsWith('reverse_one:') && ids.length) this.extras.set(name, await this.loadReverseOne(f, ids));
    }
    const hooks = hooksOf(this.entry);
    for (const name of fields) {
      const source = d.fields[name]?.source;
      if (source?.startsWith('hook:') && rows.length) {
        const fn = hooks.map((h) => h.computed?.[source.slice(5)]).find(Boolean)!;
        this.extras.set(name, await fn(rows, { db, entry: this.entry, refer: (target, id, extra) => { this.cache.need(target, id); return new Reference(target, id, extra); } }));
      }
      if (source?.startsWith('reverse:') && rows.length) {
        const links = await reverseIds(db, this.entry, source, ids);
        for (const list of links.values()) for (const id of list) this.cache.need(reverseSource(source).model, id);
        this.extras.set(name, links);
      }
    }
    await this.cache.resolve();
  }

  /**
   * A computed `reverse_one:<Model>.<field>`: per object, the first row (lowest id) of that model
   * pointing at it, limited by `where`; the row and what its form shows are queued for loading.
   */
  private async loadReverseOne(f: FieldDefinition, ids: number[]): Promise<Map<number, number>> {
    const [name, fieldName] = f.source!.slice(12).split('.');
    const other = model(name);
    const via = other.definition.fields[fieldName];
    const column = via.type === 'generic_fk' ? `${via.name}_id` : via.columns[0];
    const q = this.options.db(other.definition.table).whereIn(column, ids).orderBy('id');
    if (via.type === 'generic_fk') q.where(`${via.name}_type`, this.entry.definition.contentType);
    for (const [key, value] of Object.entries(f.where ?? {})) q.where(other.definition.fields[key]?.columns[0] ?? key, value as string);
    const found = new Map<number, number>();
    const rows: Row[] = await q;
    this.cache.add(name, rows);
    for (const row of rows) {
      if (!found.has(Number(row[column]))) found.set(Number(row[column]), Number(row.id));
      for (const [target, col] of followOf(other)) this.cache.need(target, row[col]);
      for (const field of f.form ?? []) {
        const shown = other.definition.fields[field];
        if (shown?.type === 'fk') this.cache.need(shown.to!, row[shown.columns[0]]);
      }
    }
    return found;
  }

  render(row: Row): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const name of this.fields) this.put(out, this.entry, row, name, this.options.brief ? 'brief' : 'full');
    return out;
  }

  display(entry: ModelEntry, row: Row): string {
    const own = displayHook(entry);
    if (own) return own(row);
    for (const template of entry.definition.display) {
      let complete = true;
      const text = template.replace(/\{([^}]+)\}/g, (_, path: string) => {
        const value = this.pathValue(entry, row, splitPath(path));
        if (isBlank(value)) complete = false;
        return String(value ?? '');
      });
      if (complete) return text;
    }
    return String(row.id);
  }

  private pathValue(entry: ModelEntry, row: Row | undefined, parts: string[]): unknown {
    if (!row) return null;
    const [head, ...rest] = parts;
    if (head === 'id') return row.id;
    const f = entry.definition.fields[head];
    if (!f) return row[head];
    if (!rest.length) {
      if (f.type === 'token_key') return row[f.columns[1]];
      if (f.type === 'generic_fk') {
        // a generic relation alone shows its target's display
        const targetName = f.types![row[`${head}_type`]];
        const related = targetName ? this.cache.get(targetName, row[`${head}_id`]) : undefined;
        return related ? this.display(model(targetName), related) : null;
      }
      if (f.type === 'choice' || f.type === 'fk') return row[f.columns[0]];
      return f.columns.length ? row[f.columns[0]] : null;
    }
    const target = model(f.to!);
    return this.pathValue(target, this.cache.get(target.definition.name, row[f.columns[0]]), rest);
  }

  /** A computed value with its references to other objects replaced by their nested forms. */
  private materialise(value: unknown): unknown {
    if (value instanceof Reference) {
      const nested = this.nested(model(value.model), value.id);
      return nested && value.extra ? { ...nested, ...(this.materialise(value.extra) as object) } : nested;
    }
    if (Array.isArray(value)) return value.map((v) => this.materialise(v));
    if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.materialise(v)]));
    }
    return value;
  }

  nested(entry: ModelEntry, id: unknown, form = entry.serializer.nested): Record<string, unknown> | null {
    const row = this.cache.get(entry.definition.name, id);
    if (!row) return null;
    const out: Record<string, unknown> = {};
    for (const name of form) this.put(out, entry, row, name, 'nested');
    return out;
  }

  private put(out: Record<string, unknown>, entry: ModelEntry, row: Row, name: string, mode: 'full' | 'brief' | 'nested'): void {
    const d = entry.definition;
    switch (name) {
      case 'id': out.id = Number(row.id); return;
      case 'url': out.url = this.url(entry, row.id); return;
      case 'display': out.display = this.display(entry, row); return;
      case 'tags': out.tags = (this.tags.get(Number(row.id)) ?? []).map((t) => this.nested(model('Tag'), t.id)); return;
      case 'custom_fields': out.custom_fields = renderCustomFields(entry === this.entry ? this.customFields : [], row.custom_field_data, (m, id) => this.nested(model(m), id)); return;
      case 'created': out.created = d.timestamps ? (row.created ? String(row.created).slice(0, 10) : null) : row.created ?? null; return;
      case 'last_updated': out.last_updated = row.last_updated ?? null; return;
    }
    if (d.counts[name]) { out[name] = entry === this.entry ? (this.extras.get(name) as Map<number, unknown>)?.get(Number(row.id)) ?? 0 : undefined; if (out[name] === undefined) delete out[name]; return; }
    const raw = d.fields[name];
    if (!raw) {
      // a column of a generic relation named on its own (e.g. changed_object_type in a brief form)
      const v = row[name];
      out[name] = v === null || v === undefined ? null : name.endsWith('_id') ? Number(v) : v;
      return;
    }
    const f = storedField(entry, raw);
    switch (f.type) {
      case 'fk': out[name] = f.to ? this.nested(model(f.to), row[f.columns[0]]) : null; return;
      case 'm2m': out[name] = (this.m2m.get(name)?.get(Number(row.id)) ?? []).map((id) => this.nested(model(f.to!), id)); return;
      case 'generic_fk': {
        const type = row[`${name}_type`] ?? null;
        const target = type ? f.types![type] : undefined;
        out[f.typeKey!] = type;
        out[`${name}_id`] = row[`${name}_id`] === null || row[`${name}_id`] === undefined ? null : Number(row[`${name}_id`]);
        out[name] = target ? this.nested(model(target), row[`${name}_id`]) : null;
        return;
      }
      case 'choice': {
        const value = row[f.columns[0]];
        if (isBlank(value)) { out[name] = null; return; }
        const set = choiceSet(f.choices!);
        const typed = set.integer ? Number(value) : value;
        if (mode !== 'full' || f.plain) { out[name] = typed; return; }
        out[name] = { value: typed, label: set.choices.find((c) => c.value === typed)?.label ?? '' };
        return;
      }
      case 'token_key': {
        const revealed = this.options.reveal?.get(Number(row.id))?.[name];
        out[name] = revealed ?? row[f.columns[1]];
        return;
      }
      case 'computed': {
        if (f.source === 'display') out[name] = this.display(entry, row);
        else if (f.source === 'tree_depth') out[name] = Number(row._depth ?? 0);
        else if (f.source === 'value') out[name] = f.value ?? null;
        else if (f.source?.startsWith('reverse:')) {
          const ids = entry === this.entry ? (this.extras.get(name) as Map<number, number[]> | undefined)?.get(Number(row.id)) ?? [] : [];
          out[name] = ids.map((id) => this.nested(model(reverseSource(f.source!).model), id));
        }
        else if (f.source?.startsWith('coalesce:')) {
          // the first relation that is set, e.g. primary_ip from primary_ip6 or primary_ip4
          const first = f.source.slice(9).split(',').map((n) => d.fields[n]).find((x) => row[x.columns[0]] !== null && row[x.columns[0]] !== undefined);
          out[name] = first ? this.nested(model(first.to!), row[first.columns[0]]) : null;
        } else if (f.source?.startsWith('reverse_one:')) {
          const other = model(f.source.slice(12).split('.')[0]);
          const id = entry === this.entry ? (this.extras.get(name) as Map<number, number> | undefined)?.get(Number(row.id)) : undefined;
          out[name] = id === undefined ? null : this.nested(other, id, f.form);
        }
        else if (f.source?.startsWith('any:')) out[name] = f.source.slice(4).split(',').some((n) => { const v = row[d.fields[n].columns[0]]; return v !== null && v !== undefined && v !== false && v !== 0; });
        else out[name] = entry === this.entry ? this.materialise((this.extras.get(name) as Map<number, unknown> | undefined)?.get(Number(row.id)) ?? null) : null;
        return;
      }
      case 'ip_prefix': case 'ip_address': out[name] = row[name]; return;
      case 'password': return;
      default: out[name] = scalar(f, row[f.columns[0]]);
    }
  }
}

/** Objects of `countedModel` pointing at each id through `field`; over a tree, descendants count too. */
async function countFor(db: Knex, entry: ModelEntry, countedModel: string, field: string, cumulative: boolean, ids: number[]): Promise<Map<number, number>> {
  const counted = model(countedModel);
  const f = counted.definition.fields[field];
  const column = f.type === 'generic_fk' ? `${field}_id` : f.columns[0];
  const table = entry.definition.table;
  let q: Knex.QueryBuilder;
  if (cumulative) {
    q = db(`${table} as a`).joinRaw(`join ?? as d on d._path like a._path || '%'`, [table])
      .join(`${counted.definition.table} as o`, `o.${column}`, 'd.id').whereIn('a.id', ids).groupBy('a.id').select('a.id as id').count('o.id as n');
  } else {
    q = f.type === 'm2m' ? db(f.through!).whereIn('to_id', ids).groupBy('to_id').select('to_id as id').count('from_id as n')
      : db(counted.definition.table).whereIn(column, ids).groupBy(column).select(`${column} as id`).count('id as n');
    if (f.type === 'generic_fk') q.where(`${field}_type`, entry.definition.contentType);
  }
  const map = new Map<number, number>();
  for (const r of await q) map.set(Number(r.id), Number(r.n));
  return map;
}

/** Renders rows of one model for a response. */
export async function renderRows(entry: ModelEntry, rows: Row[], options: RenderOptions): Promise<Record<string, unknown>[]> {
  const renderer = new Renderer(entry, options);
  await renderer.load(rows);
  return rows.map((r) => renderer.render(r));
}
