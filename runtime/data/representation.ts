/**
 * Each model's representations compiled once, from the registry: for every field of the full,
 * brief and nested forms a small function that copies one value out of a row, with everything that
 * does not depend on the row (the target model, the choice labels, the display templates split into
 * literal text and column reads, the URL prefix) worked out at compile time. Rendering a page then
 * does only per-row work: no regex, no path splitting and no registry lookups per value.
 */
import { choiceSet, model, storedField, type Row } from './registry.js';
import { snapshotIn } from '../core/snapshot-shape.js';
import { reverseSource } from './reverse.js';
import type { FieldDefinition, ModelEntry } from '../core/types.js';
import { formsOf, pathsIn, typeKeyIn } from '../core/versions.js';
import { conversions } from '../core/conversions.js';
import { compileDisplay, isBlank } from './display.js';
import type { Mode, Put, RenderState } from './render-state.js';

export type { Mode, Put, RenderState } from './render-state.js';

const toNumber = (v: unknown) => (v === null || v === undefined ? null : Number(v));

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
/** A field whose value `value` works out: stored under its name by a function of its own (fieldFunction). */
const named = (name: string, value: (row: Row, s: RenderState) => unknown): Put => fieldFunction(`(out, row, s) => { out${at(name)} = value(row, s); }`, { value });

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
    return fieldFunction(`(out, row, s) => { if (s.entry === entry) out${at(name)} = s.extra(${JSON.stringify(name)}, Number(row.id)) ?? 0; }`, { entry });
  }
  const raw = d.fields[name];
  if (!raw) {
    // a column of a generic relation named on its own (e.g. changed_object_type in a brief form)
    const numeric = name.endsWith('_id');
    return named(name, (row) => { const v = row[name]; return v === null || v === undefined ? null : numeric ? Number(v) : v; });
  }
  const f = storedField(entry, raw);
  const column = f.columns[0];
  switch (f.type) {
    case 'fk': {
      if (!f.to) return named(name, () => null);
      return fieldFunction(`(out, row, s) => { out${at(name)} = s.nested(${JSON.stringify(f.to)}, row${at(column)}); }`);
    }
    case 'm2m': {
      const target = JSON.stringify(f.to!);
      return fieldFunction(`(out, row, s) => { out${at(name)} = s.m2m(${JSON.stringify(name)}, Number(row.id)).map((id) => s.nested(${target}, id)); }`);
    }
    case 'generic_fk': {
      // the API's key for the type half may differ from the column (<name>_type)
      const typeColumn = `${name}_type`;
      const typeKey = typeKeyIn(f, version);
      const idKey = `${name}_id`;
      const nestedKey = f.nestedKey ?? name;
      const types = f.types!;
      // keys the relation adds to targets of some types, computed for the page's own rows (`<name>.<key>`)
      const extra = Object.entries(f.extra ?? {}).map(([key, x]) => ({ key, on: new Set(x.on), computed: `${name}.${key}` }));
      return fieldFunction(`(out, row, s) => {
        const type = row${at(typeColumn)} ?? null;
        const target = type ? types[type] : undefined;
        out${at(typeKey)} = type;
        out${at(idKey)} = toNumber(row${at(idKey)});
        let nested = target ? s.nested(target, row${at(idKey)}) : null;
        if (nested && extra.length && s.entry === entry) {
          // nested forms are shared within a response: the keys go on a copy
          for (const x of extra) {
            const v = x.on.has(type) ? s.extra(x.computed, Number(row.id)) : undefined;
            if (v !== undefined) nested = { ...nested, [x.key]: v };
          }
        }
        out${at(nestedKey)} = nested;
      }`, { types, toNumber, extra, entry });
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
      return named(name, (row, s) => s.revealed(Number(row.id), name) ?? row[masked]);
    }
    case 'computed': {
      if (f.source === 'display') return named(name, display);
      if (f.source === 'tree_depth') return named(name, (row) => Number(row._depth ?? 0));
      // a secret the creating write generated, shown in that answer only (a token's plaintext)
      if (f.source === 'revealed') return named(name, (row, s) => s.revealed(Number(row.id), name) ?? null);
      if (f.source === 'value') { const value = f.value ?? null; return named(name, () => value); }
      if (f.source?.startsWith('reverse:')) {
        const target = JSON.stringify(reverseSource(f.source).model);
        return fieldFunction(`(out, row, s) => {
          const ids = s.entry === entry ? s.extra(${JSON.stringify(name)}, Number(row.id)) ?? [] : [];
          out${at(name)} = ids.map((id) => s.nested(${target}, id));
        }`, { entry });
      }
      if (f.source?.startsWith('reverse_one:')) {
        // the first related row (loaded with the page), in its nested form or the fields of `form`
        const target = f.source.slice(12).split('.')[0];
        const form = f.form;
        return fieldFunction(`(out, row, s) => {
          const id = s.entry === entry ? s.extra(${JSON.stringify(name)}, Number(row.id)) : undefined;
          out${at(name)} = id === undefined ? null : s.nested(${JSON.stringify(target)}, id, form);
        }`, { entry, form });
      }
      if (f.source?.startsWith('any:')) {
        // true when one of the fields is set (`!name`: is not set); a `reverse_one:` field is set when
        // it found a row (loaded with the page: load-plan.ts)
        const parts = f.source.slice(4).split(',').map((n) => ({ negate: n.startsWith('!'), field: d.fields[n.replace(/^!/, '')] }));
        const isSet = (v: unknown) => v !== null && v !== undefined && v !== false && v !== 0;
        return named(name, (row, s) => parts.some(({ negate, field }) => {
          const value = field.columns.length ? row[field.columns[0]] : s.entry === entry ? s.extra(field.name, Number(row.id)) : undefined;
          return negate !== isSet(value);
        }));
      }
      if (f.source?.startsWith('coalesce:')) {
        // the first relation that is set, e.g. primary_ip from primary_ip6 or primary_ip4
        const options = f.source.slice(9).split(',').map((n) => d.fields[n]).map((x) => [x.columns[0], x.to!] as const);
        return named(name, (row, s) => {
          const first = options.find(([c]) => row[c] !== null && row[c] !== undefined);
          return first ? s.nested(first[1], row[first[0]]) : null;
        });
      }
      return fieldFunction(`(out, row, s) => { out${at(name)} = s.entry === entry ? s.materialise(s.extra(${JSON.stringify(name)}, Number(row.id)) ?? null) : null; }`, { entry });
    }
    case 'image': {
      // the URL the file is served at (the field's route), null without a file
      return named(name, (row, s) => (row[column] ? `${s.baseUrl}${prefix}${row.id}/${name}/` : null));
    }
    case 'ip_prefix': case 'ip_address': return fieldFunction(`(out, row) => { out${at(name)} = row${at(name)}; }`);
    case 'json': {
      if (!f.snapshotOf) return fieldFunction(`(out, row) => { const v = row${at(column)}; out${at(name)} = ${scalarText(f)}; }`);
      // a change-log snapshot, in the field names of the version rendered (runtime/core/snapshot-shape.ts)
      const types = d.fields[f.snapshotOf].types!;
      const typeColumn = `${f.snapshotOf}_type`;
      return named(name, (row) => {
        const v = row[column];
        const snap = v === null || v === undefined ? null : typeof v === 'string' ? JSON.parse(v) : v;
        const target = types[row[typeColumn]];
        return target ? snapshotIn(model(target), snap, version) : snap;
      });
    }
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

/** By model entry, then version (undefined: the default forms): looked up on every nested object a response builds, so without a key string made per call. */
const compiled = new WeakMap<ModelEntry, Map<string | undefined, Compiled>>();

/** The functions of a field list other than the model's forms (a computed reverse_one's `form`), compiled once. */
const formMemo = new Map<string, Put[]>();
export function compiledForm(entry: ModelEntry, form: string[], version?: string): Put[] {
  const key = `${entry.definition.name}@${version}:${form.join(',')}`;
  let puts = formMemo.get(key);
  if (!puts) {
    const display = compiledOf(entry, version).display;
    puts = form.map((n) => compileField(entry, n, 'nested', display, version)).filter((p): p is Put => !!p);
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
  let byVersion = compiled.get(entry);
  if (!byVersion) compiled.set(entry, (byVersion = new Map()));
  let c = byVersion.get(version);
  if (c) return c;
  const s = formsOf(entry, version);
  // a version with display templates of its own (`display_since:`) compiles them; the others share the model's
  const display = version === undefined ? compileDisplay(entry) : s.display ? compileDisplay(entry, s.display) : compiledOf(entry).display;
  const one = (mode: Mode, n: string): Put | null => {
    const put = compileField(entry, n, mode, display, version);
    const conversion = s.convert[n] ? conversions[s.convert[n]] : undefined;
    if (!put || !conversion) return put;
    return fieldFunction(`(out, row, state) => { put(out, row, state); out${at(n)} = read(out${at(n)}, row, ${JSON.stringify(n)}); }`, { put, read: conversion.read });
  };
  const build = (mode: Mode, names: string[]) => new Map(names.map((n) => [n, one(mode, n)] as const));
  const fields = { full: build('full', s.full), brief: build('brief', s.brief), nested: build('nested', s.nested) };
  c = { display, fields, nested: [...fields.nested.values()].filter((p): p is Put => !!p) };
  byVersion.set(version, c);
  return c;
}
