/**
 * The columns a nested row is read with, per model, worked out once from the schema: what its
 * nested form, its display templates (and other models' display paths through it), the relations
 * followRow follows and the `form` of a computed reverse_one read. A device detail's site, rack,
 * role, type, tenant, platform, manufacturer and tags are then read by name, not `select *`: node-pg
 * builds each result's row template from every column it is sent (its largest function in a
 * detail's profile), and the backends send ~150 columns per detail nobody reads.
 *
 * Whatever the schema alone cannot tell reads the whole row (null): a model whose display or
 * display data a hook computes, or a name that is not one of the model's stored columns.
 */
import { displaysInAnyVersion, nestedInAnyVersion } from '../core/versions.js';
import { hooksOf, model, modelList, storedField } from './registry.js';
import type { ModelEntry } from '../core/types.js';
import { splitPath } from '../core/paths.js';
import { followOf } from './follow.js';

let columns: Map<string, string[] | null> | null = null;

/** The columns to read a nested row of `entry` with; null: all of them. */
export function nestedColumns(entry: ModelEntry): string[] | null {
  columns ??= compute();
  return columns.get(entry.definition.name) ?? null;
}

/** The model's stored columns, as the schema declares them. */
function storedColumns(entry: ModelEntry): Set<string> {
  const d = entry.definition;
  const out = new Set(['id']);
  for (const f of Object.values(d.fields)) for (const c of storedField(entry, f)?.columns ?? []) out.add(c);
  for (const c of Object.values(d.counts)) if (c.column) out.add(c.column);
  if (d.timestamps) { out.add('created'); out.add('last_updated'); }
  if (d.customFields) out.add('custom_field_data');
  return out;
}

function compute(): Map<string, string[] | null> {
  const wanted = new Map<string, Set<string> | null>();
  for (const entry of modelList) {
    const hooks = hooksOf(entry);
    wanted.set(entry.definition.name, hooks.some((h) => h.display || h.displayData) ? null : new Set(['id']));
  }
  const whole = (entry: ModelEntry) => wanted.set(entry.definition.name, null);
  const add = (entry: ModelEntry, column: string) => wanted.get(entry.definition.name)?.add(column);

  /** The columns a display path reads, on this model and the ones it goes through (as compilePath reads them). */
  const path = (entry: ModelEntry, parts: string[]): void => {
    const [head, ...rest] = parts;
    if (head === 'id') return;
    const raw = entry.definition.fields[head];
    if (!raw) return void whole(entry);
    const f = storedField(entry, raw);
    if (f.type === 'generic_fk') { add(entry, `${head}_type`); add(entry, `${head}_id`); return; }
    if (f.type === 'token_key') return void add(entry, f.columns[1]);
    if (!f.columns[0]) return;
    add(entry, f.columns[0]);
    if (rest.length && f.type === 'fk') path(model(f.to!), rest);
  };

  /** The columns one field of a form reads from the row (as compileField's functions read them). */
  const field = (entry: ModelEntry, name: string): void => {
    const d = entry.definition;
    if (name === 'id' || name === 'url' || name === 'display' || name === 'tags') return;
    if (name === 'custom_fields') return void add(entry, 'custom_field_data');
    if (name === 'created' || name === 'last_updated') return void add(entry, name);
    if (d.counts[name]) { if (d.counts[name].column) add(entry, d.counts[name].column!); return; }
    const raw = d.fields[name];
    if (!raw) return void whole(entry);
    const f = storedField(entry, raw);
    switch (f.type) {
      case 'm2m': case 'password': return;
      case 'generic_fk': add(entry, `${name}_type`); add(entry, `${name}_id`); return;
      case 'token_key': add(entry, f.columns[1]); return;
      case 'ip_prefix': case 'ip_address': add(entry, name); return;
      case 'computed': {
        const source = f.source ?? '';
        if (source === 'tree_depth') return void add(entry, '_depth');
        if (source.startsWith('any:') || source.startsWith('coalesce:')) {
          for (const n of source.slice(source.indexOf(':') + 1).split(',')) { const column = d.fields[n.replace(/^!/, '')].columns[0]; if (column) add(entry, column); }
        }
        // display and value read nothing more; the others are the page's own rows' (extras by id)
        return;
      }
      default: if (f.columns[0]) add(entry, f.columns[0]);
    }
  };

  for (const entry of modelList) {
    const d = entry.definition;
    for (const name of nestedInAnyVersion(entry)) field(entry, name);
    for (const template of displaysInAnyVersion(entry)) for (const [, p] of template.matchAll(/\{([^}]+)\}/g)) path(entry, splitPath(p));
    for (const [, column] of followOf(entry)) add(entry, column);
    // A reverse_one's `form` shows other fields of its rows, which may come from a nested read.
    for (const f of Object.values(d.fields)) {
      if (f.type === 'computed' && f.source?.startsWith('reverse_one:') && f.form) {
        const other = model(f.source.slice(12).split('.')[0]);
        for (const name of f.form) field(other, name);
      }
    }
  }
  const out = new Map<string, string[] | null>();
  for (const entry of modelList) {
    const set = wanted.get(entry.definition.name);
    const stored = storedColumns(entry);
    out.set(entry.definition.name, set && [...set].every((c) => stored.has(c)) ? [...set] : null);
  }
  return out;
}
