/**
 * Rows → JSON representations, in a fixed number of queries whatever the page size: related rows
 * are loaded in batches (one query per model per level of nesting), then tags, many-to-many
 * fields, counts and computed fields take one query each for the whole page. Related rows load
 * through row-cache.ts; what a form loads is planned in load-plan.ts; trees count in cumulative-counts.ts.
 */
import type { Knex } from 'knex';
import { model, type Row } from './registry.js';
import type { FieldDefinition, ModelEntry } from '../core/types.js';
import { compiledForm, compiledOf, type Put, type RenderState } from './representation.js';
import { followRow } from './follow.js';
import { reverseIds, reverseSource } from './reverse.js';
import { batchesReads, readByIds, whenAnyRow } from './reads.js';
import { pathsIn } from '../core/versions.js';
import { customFieldTargets, customFieldsFor, renderCustomFields, type CustomFieldDef } from './customfields.js';
import { CHUNK, RowCache, needGeneric, together } from './row-cache.js';
import { planOf, type LoadPlan } from './load-plan.js';
import { countAll } from './cumulative-counts.js';
import { TAGGED_ITEMS } from './tagged-items.js';

export interface RenderOptions {
  db: Knex;
  /** where API URLs start: scheme, host and the version prefix the request came under */
  baseUrl: string;
  /** where web interface URLs start (default: baseUrl) */
  origin?: string;
  /** the API version whose forms are shown (default: the default forms) */
  version?: string;
  brief?: boolean;
  exclude?: string[];
  /** only these fields of the full form, in its order (`?fields=`) */
  fields?: string[];
  /** values shown once, e.g. a token key in the response that creates it: id → field → value */
  reveal?: Map<number, Record<string, unknown>>;
  /**
   * The rows were created by this request, without tags or links, and nothing has been written
   * since that points at them: their tags, links, counts and reverse relations are known to be
   * empty, and are not read.
   */
  fresh?: boolean;
}

/** A content type ('app.model', from the schema) checked before it is written into SQL. */
function contentTypeLiteral(contentType: string): string {
  if (!/^[a-z0-9_]+\.[a-z0-9_]+$/.test(contentType)) throw new Error(`unexpected content type ${contentType}`);
  return contentType;
}

/** Another object inside a computed value, rendered in its nested form (see ComputedContext.refer). */
class Reference {
  constructor(readonly model: string, readonly id: unknown, readonly extra?: Record<string, unknown>) {}
}

export class Renderer implements RenderState {
  readonly cache: RowCache;
  readonly baseUrl: string;
  readonly origin: string;
  private readonly version: string | undefined;
  private extras = new Map<string, Map<number, unknown>>();
  private tagMap = new Map<number, number[]>();
  private m2mMap = new Map<string, Map<number, number[]>>();
  private customFieldDefs: CustomFieldDef[] = [];
  /** nested forms already built for this response, by model and id (the same site on every device) */
  private nestedMemo = new Map<string, Map<number, Record<string, unknown> | null>>();
  private readonly puts: Put[];
  private shape: Record<string, unknown> | undefined;

  private readonly plan: LoadPlan;

  constructor(readonly entry: ModelEntry, private options: RenderOptions) {
    this.cache = new RowCache(options.db);
    this.baseUrl = options.baseUrl;
    this.origin = options.origin ?? options.baseUrl;
    this.version = options.version;
    this.plan = planOf(entry, !!options.brief, options.exclude ?? [], options.version, options.fields);
    this.puts = this.plan.puts;
  }

  url(entry: ModelEntry, id: unknown): string {
    return `${this.baseUrl}${pathsIn(entry, this.version).list}${id}/`;
  }

  /** Loads everything the page's representations need: the independent loads at once, then the nested rows level by level. */
  async load(rows: Row[]): Promise<void> {
    const { db } = this.options;
    const d = this.entry.definition;
    const plan = this.plan;
    this.cache.narrow = true;
    this.cache.add(d.name, rows);
    const ids = rows.map((r) => Number(r.id));
    // Rows other rows may point at (tags, links, counts, reverse relations): none for rows just created.
    const related = ids.length > 0 && !this.options.fresh;
    const tasks: (() => Promise<void>)[] = [];
    for (const [target, column] of plan.fks) for (const row of rows) this.cache.need(target, row[column]);
    if (related) for (const f of plan.m2m) tasks.push(() => this.loadLinks(f.name, f.through!, f.to!, ids));
    const need = (target: string, id: unknown) => this.cache.need(target, id);
    for (const row of rows) followRow(this.entry, row, need);
    if (plan.generic.length) for (const row of rows) needGeneric(this.cache, row, plan.generic);
    if (plan.customFields && rows.length) {
      tasks.push(() => customFieldsFor(db, this.entry).then((defs) => {
        this.customFieldDefs = defs;
        customFieldTargets(defs, rows, (target, id) => this.cache.need(target, id));
      }));
    }
    if (plan.tags && related) tasks.push(() => this.loadTags(ids));
    const counted = plan.counted;
    if (counted.length && related) tasks.push(() => countAll(db, this.entry, counted, ids).then((maps) => { for (const [name, m] of maps) this.extras.set(name, m); }));
    if (related) for (const f of plan.reverseOne) tasks.push(() => this.loadReverseOne(f.name, f, ids));
    const refer = (target: string, id: unknown, extra?: Record<string, unknown>) => { this.cache.need(target, id); return new Reference(target, id, extra); };
    if (rows.length) {
      for (const { name, source, hook } of plan.computed) {
        if (hook) tasks.push(() => hook(rows, { db, entry: this.entry, refer, baseUrl: this.baseUrl, version: this.version }).then((m) => { this.extras.set(name, m); }));
        else if (related) {
          tasks.push(() => reverseIds(db, this.entry, source, ids).then((links) => {
            for (const list of links.values()) for (const id of list) this.cache.need(reverseSource(source).model, id);
            this.extras.set(name, links);
          }));
        }
      }
    }
    // On a pool, the rows the page's own relations point at load while the other loads run (one
    // round trip less in sequence on PostgreSQL); what those loads ask for is resolved after.
    if (db.isTransaction) await together(db, tasks);
    else await Promise.all([together(db, tasks), this.cache.resolveLevel()]);
    await this.cache.resolve();
  }

  /**
   * A computed `reverse_one:<Model>.<field>`: per object, the first row (lowest id) of that model
   * pointing at it, limited by `where`; the row and what its form shows are queued for loading.
   */
  private async loadReverseOne(name: string, f: FieldDefinition, ids: number[]): Promise<void> {
    const [otherName, fieldName] = f.source!.slice(12).split('.');
    const other = model(otherName);
    const via = other.definition.fields[fieldName];
    const column = via.type === 'generic_fk' ? `${via.name}_id` : via.columns[0];
    const db = this.options.db;
    const found = new Map<number, number>();
    const need = (target: string, id: unknown) => this.cache.need(target, id);
    for (let i = 0; i < ids.length; i += CHUNK) {
      const rows = await readByIds(db, `reverse-one:${this.entry.definition.name}:${name}`, ids.slice(i, i + CHUNK), (chunk) => {
        const q = whenAnyRow(db, db(other.definition.table).whereIn(column, chunk).orderBy('id'), other.definition.table);
        if (via.type === 'generic_fk') q.where(`${via.name}_type`, this.entry.definition.contentType);
        for (const [key, value] of Object.entries(f.where ?? {})) q.where(other.definition.fields[key]?.columns[0] ?? key, value as string);
        return q;
      });
      this.cache.add(otherName, rows);
      for (const row of rows) {
        if (!found.has(Number(row[column]))) found.set(Number(row[column]), Number(row.id));
        followRow(other, row, need);
        for (const field of f.form ?? []) {
          const shown = other.definition.fields[field];
          if (shown?.type === 'fk') this.cache.need(shown.to!, row[shown.columns[0]]);
        }
      }
    }
    this.extras.set(name, found);
  }

  private async loadLinks(name: string, through: string, target: string, ids: number[]): Promise<void> {
    const db = this.options.db;
    const map = new Map<number, number[]>();
    for (let i = 0; i < ids.length; i += CHUNK) {
      const links = await readByIds(db, `links:${through}`, ids.slice(i, i + CHUNK), (chunk) => whenAnyRow(db, db(through).select('from_id', 'to_id').whereIn('from_id', chunk).orderBy('to_id'), through));
      for (const l of links) {
        const from = Number(l.from_id);
        let list = map.get(from);
        if (!list) map.set(from, (list = []));
        list.push(Number(l.to_id));
        this.cache.need(target, l.to_id);
      }
    }
    this.m2mMap.set(name, map);
  }

  /**
   * The page's tags as pairs of ids, and each tag's row once beside them: a page of 1000 devices with
   * two of five tags reads 2000 pairs and 5 tags, not 2000 whole tag rows. The pairs come from the
   * link table's index alone; each object's tags are then put in tag order by the tag rows' order
   * (read in the database's order by name). On PostgreSQL, outside a transaction, the tag rows are
   * read by a subquery in the pairs' round trip; elsewhere by the ids the pairs hold (reading them by
   * a subquery repeats the pairs' lookup: ~0.8 ms of a SQLite page of 1000 devices).
   */
  private async loadTags(ids: number[]): Promise<void> {
    const db = this.options.db;
    const contentType = contentTypeLiteral(this.entry.definition.contentType);
    const tagEntry = model('Tag');
    const tagTable = tagEntry.definition.table;
    // Tags are only shown in their nested form.
    const tagColumns = this.cache.columnsOf(tagEntry);
    const tagRows = `tag-rows:${tagColumns ? 'nested' : 'all'}`;
    // The content type as a literal: SQLite recompiles this join on every run when it is a bound string.
    const taggedIn = (chunk: number[]) => db(`${TAGGED_ITEMS} as ti`).whereRaw(`ti.object_type = '${contentType}'`).whereIn('ti.object_id', chunk);
    const readPairs = (chunk: number[]) => readByIds(db, `tag-pairs:${contentType}`, chunk, (c) => taggedIn(c).select('ti.object_id as _object_id', 'ti.tag_id as _tag_id'));
    for (let i = 0; i < ids.length; i += CHUNK) {
      const chunk = ids.slice(i, i + CHUNK);
      let pairs: Row[];
      let tags: Row[];
      if (batchesReads(db)) {
        [pairs, tags] = await together(db, [
          () => readPairs(chunk),
          () => readByIds(db, `${tagRows}:${contentType}`, chunk, (c) => db(tagTable).select(tagColumns ?? '*').whereIn('id', taggedIn(c).select('ti.tag_id')).orderBy('name')),
        ]);
      } else {
        pairs = await readPairs(chunk);
        const tagIds = [...new Set(pairs.map((p) => Number(p._tag_id)))];
        tags = tagIds.length ? await readByIds(db, tagRows, tagIds, (c) => db(tagTable).select(tagColumns ?? '*').whereIn('id', c).orderBy('name')) : [];
      }
      // A chunk's tag rows hold every tag of its objects, in order: each object's list is sorted by them.
      const rank = new Map<number, number>(tags.map((tag, k) => [Number(tag.id), k]));
      const lists: number[][] = [];
      for (const pair of pairs) {
        const id = Number(pair._object_id);
        let list = this.tagMap.get(id);
        if (!list) {
          this.tagMap.set(id, (list = []));
          lists.push(list);
        }
        list.push(Number(pair._tag_id));
      }
      for (const list of lists) if (list.length > 1) list.sort((a, b) => rank.get(a)! - rank.get(b)!);
      this.cache.add('Tag', tags, !!tagColumns);
    }
  }

  render(row: Row): Record<string, unknown> {
    // Copies of the first row's keys: an object given fifty keys one by one turns into a slow
    // dictionary; a copy of one with them all keeps V8's fast layout (the fields set the same keys
    // on every row of a response).
    const out: Record<string, unknown> = this.shape ? { ...this.shape } : {};
    for (const put of this.puts) put(out, row, this);
    this.shape ??= Object.fromEntries(Object.keys(out).map((k) => [k, undefined]));
    return out;
  }

  row(name: string, id: unknown): Row | undefined {
    return this.cache.get(name, id);
  }

  /** The nested form of one loaded object, by model (name or entry) and id; built once per response. A `form` lists other fields (not memoised). */
  nested(target: string | ModelEntry, id: unknown, form?: string[]): Record<string, unknown> | null {
    if (id === null || id === undefined) return null;
    const name = typeof target === 'string' ? target : target.definition.name;
    const n = Number(id);
    if (form) {
      const row = this.cache.get(name, n);
      if (!row) return null;
      const out: Record<string, unknown> = {};
      for (const put of compiledForm(model(name), form, this.version)) put(out, row, this);
      return out;
    }
    let memo = this.nestedMemo.get(name);
    if (!memo) this.nestedMemo.set(name, (memo = new Map()));
    if (memo.has(n)) return memo.get(n)!;
    const row = this.cache.get(name, n);
    let out: Record<string, unknown> | null = null;
    if (row) {
      out = {};
      for (const put of compiledOf(model(name), this.version).nested) put(out, row, this);
    }
    memo.set(n, out);
    return out;
  }

  tags(id: number): number[] {
    return this.tagMap.get(id) ?? [];
  }

  m2m(field: string, id: number): number[] {
    return this.m2mMap.get(field)?.get(id) ?? [];
  }

  extra(field: string, id: number): unknown {
    return this.extras.get(field)?.get(id);
  }

  customFields(entry: ModelEntry, raw: unknown): Record<string, unknown> {
    return renderCustomFields(entry === this.entry ? this.customFieldDefs : [], raw as string | null, (m, id) => this.nested(m, id));
  }

  revealed(id: number, field: string): unknown {
    return this.options.reveal?.get(id)?.[field];
  }

  display(entry: ModelEntry, row: Row): string {
    return compiledOf(entry, this.version).display(row, this);
  }

  materialise(value: unknown): unknown {
    if (value === null || typeof value !== 'object') return value;
    if (value instanceof Reference) {
      const nested = this.nested(value.model, value.id);
      return nested && value.extra ? { ...nested, ...(this.materialise(value.extra) as object) } : nested;
    }
    if (Array.isArray(value)) return value.map((v) => this.materialise(v));
    if (Object.getPrototypeOf(value) === Object.prototype) {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.materialise(v)]));
    }
    return value;
  }
}

/** Renders rows of one model for a response. */
export async function renderRows(entry: ModelEntry, rows: Row[], options: RenderOptions): Promise<Record<string, unknown>[]> {
  const renderer = new Renderer(entry, options);
  await renderer.load(rows);
  return rows.map((r) => renderer.render(r));
}
