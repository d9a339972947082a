/**
 * Each model's representations compiled once, from the registry: for every field of the full,
 * brief and nested forms a small function that copies one value out of a row, with everything that
 * does not depend on the row (the target model, the choice labels, the display templates split into
 * literal text and column reads, the URL prefix) worked out at compile time. Rendering a page then
 * does only per-row work: no regex, no path splitting and no registry lookups per value.
 */
import { choiceSet, hooksOf, model, modelList, storedField, type Row } from './registry.js';
import { reverseSource } from './reverse.js';
import type { FieldDefinition, ModelEntry } from '../core/types.js';
import { splitPath } from '../core/paths.js';
import { formsOf, nestedInAnyVersion, pathsIn } from '../core/versions.js';
import { conversions } from '../core/conversions.js';

export type Mode = 'full' | 'brief' | 'nested';

/** What a field function reads besides the row: the page's loaded relations and extras. */
export interface RenderState {
  /** the model whose rows are the response's top-level objects */
  readonly entry: ModelEntry;
  /** where the answer's API URLs start: scheme, host and the version prefix it was asked under */
  readonly baseUrl: string;
  /** where the web interface's URLs start (display_url): scheme and host */
  readonly origin: string;
  row(model: string, id: unknown): Row | undefined;
  /** the nested form of another object (or the fields of `form`, a computed reverse_one's list) */
  nested(model: string, id: unknown, form?: string[]): Record<string, unknown> | null;
  display(entry: ModelEntry, row: Row): string;
  /** a computed value with its references to other objects replaced by their nested forms */
  materialise(value: unknown): unknown;
  /** the ids of an object's tags, in tag order */
  tags(id: number): number[];
  m2m(field: string, id: number): number[];
  extra(field: string, id: number): unknown;
  customFields(entry: ModelEntry, raw: unknown): Record<string, unknown>;
  revealed(id: number, field: string): unknown;
}

export type Put = (out: Record<string, unknown>, row: Row, state: RenderState) => void;

/** A compiled display path: read a column, following fks through the loaded rows. */
type Read = (row: Row, state: RenderState) => unknown;

function isBlank(v: unknown): boolean {
  return v === null || v === undefined || v === '';
}

const toNumber = (v: unknown) => (v === null || v === undefined ? null : Number(v));

function compilePath(entry: ModelEntry, parts: string[]): Read {
  const [head, ...rest] = parts;
  if (head === 'id') return (row) => row.id;
  const f = entry.definition.fields[head];
  if (!f) return (row) => row[head];
  if (!rest.length) {
    if (f.type === 'generic_fk') {
      // a generic relation named alone shows its target's display
      const types = f.types!;
      return (row, state) => {
        const targetName = types[row[`${head}_type`]];
        const related = targetName ? state.row(targetName, row[`${head}_id`]) : undefined;
        return related ? state.display(model(targetName), related) : null;
      };
    }
    if (f.type === 'fk') {
      // a relation named alone shows its target's display, as Python's str() of it does
      const target = f.to!;
      const column = f.columns[0];
      return (row, state) => {
        const related = state.row(target, row[column]);
        return related ? state.display(model(target), related) : null;
      };
    }
    const column = f.type === 'token_key' ? f.columns[1] : f.columns[0];
    if (!column) return () => null;
    return (row) => row[column];
  }
  if (f.type === 'choice' && rest.length === 1 && rest[0] === 'label') {
    // `{priority.label}`: the choice's label, as NetBox's get_<field>_display()
    const labels = new Map(choiceSet(f.choices!).choices.map((c) => [String(c.value), c.label]));
    const column = f.columns[0];
    return (row) => (isBlank(row[column]) ? null : labels.get(String(row[column])) ?? row[column]);
  }
  const target = f.to!;
  const column = f.columns[0];
  const next = compilePath(model(target), rest);
  return (row, state) => {
    const related = state.row(target, row[column]);
    return related ? next(related, state) : null;
  };
}

/** Display templates ("{name} ({asset_tag})") as literal parts and compiled reads; the first complete one wins. */
export function compileDisplay(entry: ModelEntry): (row: Row, state: RenderState) => string {
  // A hook computes the display when no template can say it (a range's shortened end).
  const own = hooksOf(entry).find((h) => h.display)?.display;
  if (own) return (row) => own(row);
  const templates = entry.definition.display.map((template) => {
    const parts: (string | Read)[] = [];
    let last = 0;
    for (const m of template.matchAll(/\{([^}]+)\}/g)) {
      if (m.index! > last) parts.push(template.slice(last, m.index));
      parts.push(compilePath(entry, splitPath(m[1])));
      last = m.index! + m[0].length;
    }
    if (last < template.length) parts.push(template.slice(last));
    return parts;
  });
  return (row, state) => {
    outer: for (const parts of templates) {
      let text = '';
      for (const part of parts) {
        if (typeof part === 'string') { text += part; continue; }
        const value = part(row, state);
        if (isBlank(value)) continue outer;
        text += String(value);
      }
      return text;
    }
    return String(row.id);
  };
}

/** A stored scalar's value from its column value `v`, as JavaScript text (compiled into its field's function). */
function scalarText(field: FieldDefinition): string {
  switch (field.type) {
    case 'integer': case 'decimal': return 'v === null || v === undefined ? null : Number(v)';
    case 'boolean': return "v === null || v === undefined ? null : v === true || v === 1 || v === '1' || v === 't'";
    case 'json': return "v === null || v === undefined ? null : typeof v === 'string' ? JSON.parse(v) : v";
    case 'datetime': return 'v === null || v === undefined ? null : wholeSeconds(v)';
    default: return 'v === undefined ? null : v';
  }
}

/**
 * A stored date-time (always with milliseconds) as NetBox prints it: fractional seconds only when
 * there are some. `last_updated` is not read through this: the spec gives it fractional seconds always.
 */
export function wholeSeconds(v: unknown): unknown {
  return typeof v === 'string' && v.endsWith('.000Z') ? `${v.slice(0, -5)}Z` : v;
}

/**
 * A field's function compiled for that field. V8 keeps type feedback per function, and closures made
 * from one literal share it: fifty fields' `out[name] = row[column]` made that way are each a
 * megamorphic lookup on every row. Compiled with its names in its text, a field's function reads and
 * writes its own properties by name. Names are quoted by JSON.stringify (`at`); `bound` are the
 * values the text refers to.
 */
function fieldFunction(text: string, bound: Record<string, unknown> = {}): Put {
  return new Function(...Object.keys(bound), `return ${text};`)(...Object.values(bound)) as Put;
}
const at = (name: string) => `[${JSON.stringify(name)}]`;

function compileField(entry: ModelEntry, name: string, mode: Mode, display: (row: Row, state: RenderState) => string, version?: string): Put | null {
  const d = entry.definition;
  // the model's path in the version rendered (`moved:`)
  const prefix = pathsIn(entry, version).list;
  switch (name) {
    case 'id': return (out, row) => { out.id = Number(row.id); };
    case 'url': return (out, row, s) => { out.url = `${s.baseUrl}${prefix}${row.id}/`; };
    case 'display': return (out, row, s) => { out.display = display(row, s); };
    case 'display_url': { const page = `/${d.app}/${d.endpoint}/`; return (out, row, s) => { out.display_url = `${s.origin}${page}${row.id}/`; }; }
    case 'tags': return (out, row, s) => { out.tags = s.tags(Number(row.id)).map((id) => s.nested('Tag', id)); };
    case 'custom_fields': return (out, row, s) => { out.custom_fields = s.customFields(entry, row.custom_field_data); };
    case 'created': return d.timestamps
      ? (out, row) => { out.created = row.created ? String(row.created).slice(0, 10) : null; }
      : (out, row) => { out.created = d.fields.created?.type === 'datetime' ? wholeSeconds(row.created ?? null) : row.created ?? null; };
    case 'last_updated': return (out, row) => { out.last_updated = row.last_updated ?? null; };
  }
  if (d.counts[name]) {
    // Counts are shown for the page's own rows only: a stored count is read from its column, the others were counted for the page.
    const column = d.counts[name].column;
    if (column) return fieldFunction(`(out, row, s) => { if (s.entry === entry) out${at(name)} = Number(row${at(column)} ?? 0); }`, { entry });
    return (out, row, s) => { if (s.entry === entry) out[name] = s.extra(name, Number(row.id)) ?? 0; };
  }
  const raw = d.fields[name];
  if (!raw) {
    // a column of a generic relation named on its own (e.g. changed_object_type in a brief form)
    const numeric = name.endsWith('_id');
    return (out, row) => { const v = row[name]; out[name] = v === null || v === undefined ? null : numeric ? Number(v) : v; };
  }
  const f = storedField(entry, raw);
  const column = f.columns[0];
  switch (f.type) {
    case 'fk': {
      if (!f.to) return (out) => { out[name] = null; };
      return fieldFunction(`(out, row, s) => { out${at(name)} = s.nested(${JSON.stringify(f.to)}, row${at(column)}); }`);
    }
    case 'm2m': {
      const target = f.to!;
      return (out, row, s) => { out[name] = s.m2m(name, Number(row.id)).map((id) => s.nested(target, id)); };
    }
    case 'generic_fk': {
      // the API's key for the type half may differ from the column (<name>_type)
      const typeColumn = `${name}_type`;
      const typeKey = f.typeKey ?? typeColumn;
      const idKey = `${name}_id`;
      const nestedKey = f.nestedKey ?? name;
      const types = f.types!;
      // keys the relation adds to targets of some types, computed for the page's own rows (`<name>.<key>`)
      const extra = Object.entries(f.extra ?? {}).map(([key, x]) => ({ key, on: new Set(x.on), computed: `${name}.${key}` }));
      return (out, row, s) => {
        const type = row[typeColumn] ?? null;
        const target = type ? types[type] : undefined;
        out[typeKey] = type;
        out[idKey] = toNumber(row[idKey]);
        let nested = target ? s.nested(target, row[idKey]) : null;
        if (nested && extra.length && s.entry === entry) {
          // nested forms are shared within a response: the keys go on a copy
          for (const x of extra) {
            const v = x.on.has(type) ? s.extra(x.computed, Number(row.id)) : undefined;
            if (v !== undefined) nested = { ...nested, [x.key]: v };
          }
        }
        out[nestedKey] = nested;
      };
    }
    case 'choice': {
      const set = choiceSet(f.choices!);
      const labels = new Map<unknown, string>(set.choices.map((c) => [c.value, c.label]));
      const typed = set.integer ? (v: unknown) => Number(v) : (v: unknown) => v;
      // A plain choice that may be blank reads blank as "" (NetBox's bare choice fields: a cable's
      // type, a component's cable_end); other blank choices read as null.
      const bound = { isBlank, typed, labels };
      if (f.plain && f.blank) return fieldFunction(`(out, row) => { const v = row${at(column)}; out${at(name)} = isBlank(v) ? '' : typed(v); }`, bound);
      if (mode !== 'full' || f.plain) return fieldFunction(`(out, row) => { const v = row${at(column)}; out${at(name)} = isBlank(v) ? null : typed(v); }`, bound);
      return fieldFunction(`(out, row) => {
        const v = row${at(column)};
        if (isBlank(v)) { out${at(name)} = null; return; }
        const value = typed(v);
        out${at(name)} = { value, label: labels.get(value) ?? '' };
      }`, bound);
    }
    case 'token_key': {
      const masked = f.columns[1];
      return (out, row, s) => { out[name] = s.revealed(Number(row.id), name) ?? row[masked]; };
    }
    case 'computed': {
      if (f.source === 'display') return (out, row, s) => { out[name] = display(row, s); };
      if (f.source === 'tree_depth') return (out, row) => { out[name] = Number(row._depth ?? 0); };
      // a secret the creating write generated, shown in that answer only (a token's plaintext)
      if (f.source === 'revealed') return (out, row, s) => { out[name] = s.revealed(Number(row.id), name) ?? null; };
      if (f.source === 'value') { const value = f.value ?? null; return (out) => { out[name] = value; }; }
      if (f.source?.startsWith('reverse:')) {
        const target = reverseSource(f.source).model;
        return (out, row, s) => {
          const ids = s.entry === entry ? (s.extra(name, Number(row.id)) as number[] | undefined) ?? [] : [];
          out[name] = ids.map((id) => s.nested(target, id));
        };
      }
      if (f.source?.startsWith('reverse_one:')) {
        // the first related row (loaded with the page), in its nested form or the fields of `form`
        const target = f.source.slice(12).split('.')[0];
        const form = f.form;
        return (out, row, s) => {
          const id = s.entry === entry ? s.extra(name, Number(row.id)) : undefined;
          out[name] = id === undefined ? null : s.nested(target, id, form);
        };
      }
      if (f.source?.startsWith('any:')) {
        // true when one of the fields is set
        const columns = f.source.slice(4).split(',').map((n) => d.fields[n].columns[0]);
        return (out, row) => {
          out[name] = columns.some((c) => { const v = row[c]; return v !== null && v !== undefined && v !== false && v !== 0; });
        };
      }
      if (f.source?.startsWith('coalesce:')) {
        // the first relation that is set, e.g. primary_ip from primary_ip6 or primary_ip4
        const options = f.source.slice(9).split(',').map((n) => d.fields[n]).map((x) => [x.columns[0], x.to!] as const);
        return (out, row, s) => {
          const first = options.find(([c]) => row[c] !== null && row[c] !== undefined);
          out[name] = first ? s.nested(first[1], row[first[0]]) : null;
        };
      }
      return (out, row, s) => { out[name] = s.entry === entry ? s.materialise(s.extra(name, Number(row.id)) ?? null) : null; };
    }
    case 'ip_prefix': case 'ip_address': return (out, row) => { out[name] = row[name]; };
    case 'password': return null;
    default: return fieldFunction(`(out, row) => { const v = row${at(column)}; out${at(name)} = ${scalarText(f)}; }`, { wholeSeconds });
  }
}

export interface Compiled {
  display: (row: Row, state: RenderState) => string;
  /** field name → its function, per form */
  fields: Record<Mode, Map<string, Put | null>>;
  /** the nested form's functions, in order */
  nested: Put[];
}

const compiled = new Map<string, Compiled>();

/** The functions of a field list other than the model's forms (a computed reverse_one's `form`), compiled once. */
const formMemo = new Map<string, Put[]>();
export function compiledForm(entry: ModelEntry, form: string[]): Put[] {
  const key = `${entry.definition.name}:${form.join(',')}`;
  let puts = formMemo.get(key);
  if (!puts) {
    const display = compiledOf(entry).display;
    puts = form.map((n) => compileField(entry, n, 'nested', display)).filter((p): p is Put => !!p);
    formMemo.set(key, puts);
  }
  return puts;
}

/**
 * The model's compiled representations in an API version's forms (undefined: the default forms),
 * built on first use and kept for the process's life. A field the version shows through a named
 * conversion gets its function wrapped in it.
 */
export function compiledOf(entry: ModelEntry, version?: string): Compiled {
  const key = version === undefined ? entry.definition.name : `${entry.definition.name}@${version}`;
  let c = compiled.get(key);
  if (c) return c;
  const display = version === undefined ? compileDisplay(entry) : compiledOf(entry).display;
  const s = formsOf(entry, version);
  const one = (mode: Mode, n: string): Put | null => {
    const put = compileField(entry, n, mode, display, version);
    const conversion = s.convert[n] ? conversions[s.convert[n]] : undefined;
    if (!put || !conversion) return put;
    return (out, row, state) => { put(out, row, state); out[n] = conversion.read(out[n], row, n); };
  };
  const build = (mode: Mode, names: string[]) => new Map(names.map((n) => [n, one(mode, n)] as const));
  const fields = { full: build('full', s.full), brief: build('brief', s.brief), nested: build('nested', s.nested) };
  c = { display, fields, nested: [...fields.nested.values()].filter((p): p is Put => !!p) };
  compiled.set(key, c);
  return c;
}

/** Relations to load whenever a row of a model is loaded: its nested fks and what its displays read. */
const follow = new Map<string, [string, string][]>();
/** Every relation followRow may follow from a row of the model: [target model, column]. */
export function followOf(entry: ModelEntry): [string, string][] {
  if (!follow.size) computeFollow();
  return follow.get(entry.definition.name) ?? [];
}

/**
 * A display template's first hops (the fks its paths start with) and, when it reads only the row's
 * own columns, a test of whether it is complete for a row.
 */
interface Stage { hops: [string, string][]; complete: ((row: Row) => boolean) | null }
/** Per model: what every loaded row needs (nested fks, hops of other models' paths), and its display stages. */
const rowFollow = new Map<string, { base: [string, string][]; stages: Stage[] }>();

/**
 * The relations to load for one loaded row: as followOf, but a display template after the first
 * one the row's own columns complete is never shown, so its relations are not loaded (a named
 * device's type and maker, for a nested device; one round trip less per level on PostgreSQL).
 */
export function followRow(entry: ModelEntry, row: Row, need: (target: string, id: unknown) => void): void {
  if (!follow.size) computeFollow();
  const plan = rowFollow.get(entry.definition.name);
  if (!plan) {
    for (const [target, column] of followOf(entry)) need(target, row[column]);
    return;
  }
  for (const [target, column] of plan.base) need(target, row[column]);
  for (const stage of plan.stages) {
    if (stage.complete?.(row)) return;
    for (const [target, column] of stage.hops) need(target, row[column]);
  }
}

/**
 * The relations followRow follows for every loaded row of a model, whatever its values (a display
 * stage's relations depend on the row, and are left out): [target model, column].
 */
export function followAlways(entry: ModelEntry): [string, string][] {
  if (!follow.size) computeFollow();
  return rowFollow.get(entry.definition.name)?.base ?? followOf(entry);
}

function computeFollow(): void {
  const lists = { all: follow, base: new Map<string, [string, string][]>() };
  const add = (name: string, field: FieldDefinition, firstHop = false) => {
    for (const [which, map] of Object.entries(lists)) {
      if (which === 'base' && firstHop) continue;
      const list = map.get(name) ?? [];
      if (field.type === 'fk' && !list.some(([, c]) => c === field.columns[0])) list.push([field.to!, field.columns[0]]);
      map.set(name, list);
    }
  };
  const stagesOf = new Map<string, Stage[]>();
  for (const entry of modelList) {
    const d = entry.definition;
    for (const map of Object.values(lists)) map.set(d.name, map.get(d.name) ?? []);
    for (const name of nestedInAnyVersion(entry)) {
      const f = d.fields[name];
      if (f) add(d.name, storedField(entry, f));
    }
    const stages: Stage[] = [];
    for (const template of d.display) {
      const hops: [string, string][] = [];
      let own: string[] | null = [];
      for (const [, path] of template.matchAll(/\{([^}]+)\}/g)) {
        let current = entry;
        const parts = splitPath(path);
        const column = ownColumn(entry, parts);
        own = own && column !== null ? (column ? [...own, column] : own) : null;
        let hop = 0;
        for (const part of parts.slice(0, -1)) {
          const f = current.definition.fields[part];
          if (f.type !== 'fk') break;   // a choice's label
          if (hop === 0) hops.push([f.to!, f.columns[0]]);
          add(current.definition.name, f, hop++ === 0);
          current = model(f.to!);
        }
        // a relation named last shows its target's display: load the target
        const last = current.definition.fields[parts[parts.length - 1]];
        if (last?.type === 'fk') {
          if (hop === 0) hops.push([last.to!, last.columns[0]]);
          add(current.definition.name, last, hop === 0);
        }
      }
      const columns = own;
      stages.push({ hops, complete: columns ? (row) => columns.every((c) => !isBlank(row[c])) : null });
    }
    stagesOf.set(d.name, stages);
  }
  // A display hook decides for itself what it reads: its model keeps the whole list.
  for (const entry of modelList) {
    const name = entry.definition.name;
    if (!hooksOf(entry).some((h) => h.display)) rowFollow.set(name, { base: lists.base.get(name)!, stages: stagesOf.get(name)! });
  }
}

/**
 * The column a template's placeholder reads from the row itself ('' for `id`), as compilePath reads
 * it: a stored field other than a relation; null for anything else.
 */
function ownColumn(entry: ModelEntry, parts: string[]): string | null {
  if (parts.length !== 1) return null;
  if (parts[0] === 'id') return '';
  const f = entry.definition.fields[parts[0]];
  if (!f || f.type === 'fk' || f.type === 'generic_fk' || f.type === 'token_key' || f.type === 'm2m' || f.type === 'computed' || !f.columns?.[0]) return null;
  return f.columns[0];
}
