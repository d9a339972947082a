/**
 * Rows → JSON representations, in a fixed number of queries whatever the page size: related rows
 * are loaded in batches (one query per model per level of nesting), then tags, many-to-many
 * fields, counts and computed fields take one query each for the whole page.
 */
import type { Knex } from 'knex';
import { hooksOf, model, storedField, type Row } from './registry.js';
import type { FieldDefinition, ModelEntry } from '../core/types.js';
import { compiledForm, compiledOf, followAlways, followRow, type Put, type RenderState } from './representation.js';
import { reverseIds, reverseSource } from './reverse.js';
import { batchesReads, readByIds, readTablesByIds, type TableRead } from './db.js';
import { nestedColumns } from './nested-columns.js';
import { formsOf, nestedInAnyVersion, pathsIn } from '../core/versions.js';
import { customFieldTargets, customFieldsFor, renderCustomFields, type CustomFieldDef } from './customfields.js';

/** Page sizes stay far below this; it only guards the database's bound-parameter limit. */
const CHUNK = 5000;

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

/** Rows of every model touched while rendering one response, loaded level by level. */
class RowCache {
  private rows = new Map<string, Map<number, Row>>();
  private pending = new Map<string, Set<number>>();
  /** ids being loaded by `resolveLevel` while other loads run: not queued again */
  private loading = new Map<string, Set<number>>();
  /** rows a displayData hook has already completed */
  private completed = new WeakSet<Row>();
  /**
   * Rows loaded here are only rendered (nested forms, displays): read with the columns those use
   * (nested-columns.ts). A hook reading other columns of a row it loads itself keeps whole rows.
   */
  narrow = false;
  constructor(private db: Knex) {}

  /** The columns to read rows of `entry` with (null: all). */
  columnsOf(entry: ModelEntry): string[] | null {
    return this.narrow ? nestedColumns(entry) : null;
  }

  /** `partial`: rows of some columns only, which do not replace a row already here (perhaps whole). */
  add(name: string, rows: Row[], partial = false): void {
    const map = this.rows.get(name) ?? new Map<number, Row>();
    for (const row of rows) if (!partial || !map.has(Number(row.id))) map.set(Number(row.id), row);
    this.rows.set(name, map);
  }

  need(name: string, id: unknown): void {
    if (id === null || id === undefined) return;
    const n = Number(id);
    if (this.rows.get(name)?.has(n) || this.loading.get(name)?.has(n)) return;
    let set = this.pending.get(name);
    if (!set) this.pending.set(name, (set = new Set()));
    set.add(n);
  }

  get(name: string, id: unknown): Row | undefined {
    return id === null || id === undefined ? undefined : this.rows.get(name)?.get(Number(id));
  }

  /** Loads everything pending, one query per model and level (the models of a level at once); newly loaded rows ask for their own nested relations. */
  async resolve(): Promise<void> {
    while (this.pending.size) await this.resolveLevel();
    // what displays read beyond the rows (one query per model that needs it)
    for (const [name, map] of this.rows) {
      const entry = model(name);
      const fn = hooksOf(entry).find((h) => h.displayData)?.displayData;
      if (!fn) continue;
      const rows = [...map.values()].filter((r) => !this.completed.has(r));
      if (!rows.length) continue;
      await fn(rows, { db: this.db, entry });
      for (const r of rows) this.completed.add(r);
    }
  }

  /**
   * Loads what is pending now, one level; what those rows point at is queued, not loaded. Safe beside
   * other loads that queue rows: the statements made do not depend on which finishes first.
   */
  async resolveLevel(): Promise<void> {
    if (!this.pending.size) return;
    const batch = [...this.pending];
    this.pending.clear();
    for (const [name, ids] of batch) this.loading.set(name, ids);
    try {
      const tables = batch.map(([name, ids]) => ({ entry: model(name), ids: [...ids] }));
      // PostgreSQL: the whole level in one round trip when it may (see readTablesByIds), with the
      // rows its rows always point at (a device type's manufacturer): one round trip less per level.
      const ahead = batchesReads(this.db) ? readsAhead(tables) : [];
      const all = [...tables.map(({ entry, ids }) => ({ entry, read: { table: entry.definition.table, ids } as TableRead })), ...ahead];
      const batched = await readTablesByIds(this.db, all.map(({ entry, read }) => ({ ...read, columns: this.columnsOf(entry) })), CHUNK);
      const levels = batched ? all.map(({ entry }, i) => [entry, batched[i]] as const) : await together(this.db, tables.map(({ entry, ids }) => async () => {
        const list = ids;
        const loaded: Row[] = [];
        const columns = this.columnsOf(entry);
        for (let i = 0; i < list.length; i += CHUNK) {
          const table = entry.definition.table;
          loaded.push(...(await readByIds(this.db, `${columns ? 'nested-rows' : 'rows'}:${table}`, list.slice(i, i + CHUNK), (ids) => this.db(table).select(columns ?? '*').whereIn('id', ids))));
        }
        return [entry, loaded] as const;
      }));
      for (const [entry, loaded] of levels) this.add(entry.definition.name, loaded, !!this.columnsOf(entry));
      this.loading.clear();
      for (const [entry, loaded] of levels) {
        const need = (target: string, id: unknown) => this.need(target, id);
        for (const row of loaded) followRow(entry, row, need);
        const generic = genericRootsOf(entry);
        if (generic.length) for (const row of loaded) needGeneric(this, row, generic);
      }
    } finally {
      this.loading.clear();
    }
  }
}

/** How many relations deep a level reads ahead (readsAhead). */
const AHEAD = 2;

/**
 * Reads of the rows a level's rows always point at (followAlways), and those rows' own, AHEAD
 * relations deep: each by a subquery on the level's ids, so they travel in the level's round trip
 * instead of making levels of their own. A relation that is null everywhere reads nothing.
 */
function readsAhead(tables: { entry: ModelEntry; ids: number[] }[]): { entry: ModelEntry; read: TableRead }[] {
  const out: { entry: ModelEntry; read: TableRead }[] = [];
  const walk = (entry: ModelEntry, ids: number[], via: { table: string; column: string }[]) => {
    if (via.length >= AHEAD) return;
    for (const [target, column] of followAlways(entry)) {
      const next = model(target);
      const chain = [...via, { table: entry.definition.table, column }];
      out.push({ entry: next, read: { table: next.definition.table, ids, via: chain } });
      walk(next, ids, chain);
    }
  };
  for (const { entry, ids } of tables) walk(entry, ids, []);
  return out;
}

/**
 * Runs independent loads at once on a pool; one after the other inside a transaction, whose single
 * connection takes one statement at a time.
 */
async function together<T>(db: Knex, tasks: (() => Promise<T>)[]): Promise<T[]> {
  if (!db.isTransaction) return Promise.all(tasks.map((t) => t()));
  const out: T[] = [];
  for (const t of tasks) out.push(await t());
  return out;
}

/** Fields the display templates start from (a generic relation named alone shows its target). */
const roots = new Map<string, string[]>();
function displayRoots(entry: ModelEntry): string[] {
  let list = roots.get(entry.definition.name);
  if (!list) roots.set(entry.definition.name, (list = entry.definition.display.flatMap((t) => [...t.matchAll(/\{(\w+)\}/g)].map((m) => m[1]))));
  return list;
}

/** The generic relations among `fields` (worked out once per page or model, not per row). */
function genericOf(entry: ModelEntry, fields: string[]): FieldDefinition[] {
  return [...new Set(fields)].map((name) => entry.definition.fields[name]).filter((f) => f?.type === 'generic_fk');
}

/** Those of a model's nested form and display templates, which every loaded row of it may point at. */
const genericRoots = new Map<string, FieldDefinition[]>();
function genericRootsOf(entry: ModelEntry): FieldDefinition[] {
  let list = genericRoots.get(entry.definition.name);
  if (!list) genericRoots.set(entry.definition.name, (list = genericOf(entry, [...nestedInAnyVersion(entry), ...displayRoots(entry)])));
  return list;
}

/** Queues the targets of a row's generic relations (`generic`, from genericOf). */
function needGeneric(cache: RowCache, row: Row, generic: FieldDefinition[]): void {
  for (const f of generic) {
    const target = f.types![row[`${f.name}_type`]];
    if (target) cache.need(target, row[`${f.name}_id`]);
  }
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

/** What rendering a model's rows in one form loads and runs, worked out once per form (planOf). */
interface LoadPlan {
  puts: Put[];
  /** the form's own relations: [target model, column] */
  fks: [string, string][];
  m2m: FieldDefinition[];
  /** generic relations of the form and of the display templates */
  generic: FieldDefinition[];
  customFields: boolean;
  tags: boolean;
  /** counts without a column of their own */
  counted: string[];
  reverseOne: FieldDefinition[];
  /** computed fields by a hook, or `reverse:` lists (no hook), in the form's order */
  computed: { name: string; source: string; hook?: ComputedHook }[];
}

type ComputedHook = NonNullable<ReturnType<typeof hooksOf>[number]['computed']>[string];

const plans = new Map<string, LoadPlan>();

/** The plan of a model's full or brief form less `exclude`, narrowed to `only` when given (bounded: a full map starts again). */
function planOf(entry: ModelEntry, brief: boolean, exclude: string[], version: string | undefined, only?: string[]): LoadPlan {
  const key = `${entry.definition.name}@${version ?? ''}:${brief ? 'brief' : 'full'}:${exclude.join(',')}${only ? `:only:${only.join(',')}` : ''}`;
  let plan = plans.get(key);
  if (plan) return plan;
  const d = entry.definition;
  const s = formsOf(entry, version);
  const fieldNames = (brief ? s.brief : s.full).filter((f) => !exclude.includes(f) && (!only || only.includes(f)));
  const compiled = compiledOf(entry, version).fields[brief ? 'brief' : 'full'];
  const stored = fieldNames.map((name) => d.fields[name]).filter((f): f is FieldDefinition => !!f).map((raw) => [raw, storedField(entry, raw)] as const);
  const hooks = hooksOf(entry);
  plan = {
    puts: fieldNames.map((n) => compiled.get(n)).filter((p): p is Put => !!p),
    fks: stored.filter(([, f]) => f.type === 'fk').map(([, f]) => [f.to!, f.columns[0]]),
    m2m: stored.filter(([, f]) => f.type === 'm2m').map(([raw, f]) => ({ ...f, name: raw.name })),
    generic: genericOf(entry, [...fieldNames, ...displayRoots(entry)]),
    customFields: fieldNames.includes('custom_fields') && !!d.customFields,
    tags: fieldNames.includes('tags'),
    counted: fieldNames.filter((name) => d.counts[name] && !d.counts[name].column),
    reverseOne: stored.filter(([raw]) => raw.type === 'computed' && raw.source?.startsWith('reverse_one:')).map(([raw]) => raw),
    computed: stored.flatMap(([raw]) => {
      // a generic relation's extra keys: computed per row under `<relation>.<key>`
      if (raw.extra) return Object.entries(raw.extra).map(([key, x]) => ({ name: `${raw.name}.${key}`, source: `hook:${x.hook}`, hook: hooks.map((h) => h.computed?.[x.hook]).find(Boolean)! }));
      const source = raw.source;
      if (source?.startsWith('hook:')) return [{ name: raw.name, source, hook: hooks.map((h) => h.computed?.[source.slice(5)]).find(Boolean)! }];
      if (source?.startsWith('reverse:')) return [{ name: raw.name, source }];
      return [];
    }),
  };
  if (plans.size >= 1000) plans.clear();
  plans.set(key, plan);
  return plan;
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
        const q = db(other.definition.table).whereIn(column, chunk).orderBy('id');
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
      const links = await readByIds(db, `links:${through}`, ids.slice(i, i + CHUNK), (chunk) => db(through).select('from_id', 'to_id').whereIn('from_id', chunk).orderBy('to_id'));
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
    const taggedIn = (chunk: number[]) => db('extras_taggeditem as ti').whereRaw(`ti.content_type = '${contentType}'`).whereIn('ti.object_id', chunk);
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
      for (const put of compiledForm(model(name), form)) put(out, row, this);
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
    return compiledOf(entry).display(row, this);
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

/**
 * The query counting objects of `countedModel` pointing at each of `ids` or their descendants through
 * `field` (columns `id` and `n`): a tree's cumulative count. Every other count is a counter column
 * of the row itself, kept by triggers (data/counter-columns.ts), and never counted here.
 */
function countQuery(db: Knex, entry: ModelEntry, countedModel: string, field: string, ids: number[]): Knex.QueryBuilder {
  const counted = model(countedModel);
  const f = counted.definition.fields[field];
  const table = entry.definition.table;
  // an m2m: the links to the node or its descendants, each object once (a contact in two of them)
  if (f.type === 'm2m') {
    return db(`${table} as a`).joinRaw(`join ?? as d on d._path like a._path || '%'`, [table])
      .join(`${f.through!} as o`, 'o.to_id', 'd.id').whereIn('a.id', ids).groupBy('a.id').select('a.id as id').countDistinct('o.from_id as n');
  }
  const column = f.type === 'generic_fk' ? `${field}_id` : f.columns[0];
  return db(`${table} as a`).joinRaw(`join ?? as d on d._path like a._path || '%'`, [table])
    .join(`${counted.definition.table} as o`, `o.${column}`, 'd.id').whereIn('a.id', ids).groupBy('a.id').select('a.id as id').count('* as n');
}

/**
 * Every cumulative count field of a page in ONE statement (the counts UNION ALL'd, each tagged with
 * its position `k`): a region's counts cost one round trip, not one each.
 */
async function countAll(db: Knex, entry: ModelEntry, names: string[], ids: number[]): Promise<Map<string, Map<number, number>>> {
  const out = new Map(names.map((name) => [name, new Map<number, number>()]));
  // Each part binds the ids once: keep the whole statement under the bound-parameter limit (SQLite
  // 32,766, PostgreSQL 65,535), so a 1,000-row page still takes one statement for ten counts.
  const step = Math.max(1, Math.min(CHUNK, Math.floor(30_000 / names.length)));
  for (let i = 0; i < ids.length; i += step) {
    const rows = await readByIds(db, `counts:${entry.definition.name}:${names.join(',')}`, ids.slice(i, i + step), (chunk) => {
      const parts = names.map((name, k) => {
        const c = entry.definition.counts[name];
        return countQuery(db, entry, c.model, c.field, chunk).select(db.raw(`${k} as k`));
      });
      // Joined by hand: knex's unionAll would move the first part's GROUP BY after the union.
      const compiled = parts.map((p) => p.toSQL());
      return db.raw(compiled.map((c) => c.sql).join(' union all '), compiled.flatMap((c) => c.bindings) as Knex.RawBinding[]);
    });
    for (const r of rows) out.get(names[Number(r.k)])!.set(Number(r.id), Number(r.n));
  }
  return out;
}

/** Renders rows of one model for a response. */
export async function renderRows(entry: ModelEntry, rows: Row[], options: RenderOptions): Promise<Record<string, unknown>[]> {
  const renderer = new Renderer(entry, options);
  await renderer.load(rows);
  return rows.map((r) => renderer.render(r));
}
