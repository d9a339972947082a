/**
 * Which related rows a model's rows need loaded before they render: the relations of its nested
 * form and what its display templates read, worked out once for every model.
 */
import { hooksOf, model, modelList, storedField, type Row } from './registry.js';
import type { FieldDefinition, ModelEntry } from '../core/types.js';
import { splitPath } from '../core/paths.js';
import { displaysInAnyVersion, nestedInAnyVersion } from '../core/versions.js';
import { isBlank } from './display.js';

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
    // versions showing different templates (`display_since:`): a row complete for one version's may need another's relations
    const several = displaysInAnyVersion(entry).length !== d.display.length;
    for (const template of displaysInAnyVersion(entry)) {
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
      const columns = several ? null : own;
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
