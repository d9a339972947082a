/**
 * The order the NetBox import (netbox-import.ts) writes models in: every relation points at a
 * model written before, but the relations that close a cycle (a device and its virtual chassis, a
 * region and its parent), which are set once every row is in.
 */
import { modelList } from './registry.js';
import type { FieldDefinition, ModelEntry } from '../core/types.js';

/** Models in an order where every relation points at a model written before, but those in a cycle (returned apart). */
export function writeOrder(): { order: ModelEntry[]; late: Map<ModelEntry, FieldDefinition[]> } {
  const byName = new Map(modelList.map((e) => [e.definition.name, e]));
  const order: ModelEntry[] = [];
  const late = new Map<ModelEntry, FieldDefinition[]>();
  const state = new Map<ModelEntry, 'visiting' | 'done'>();
  const visit = (e: ModelEntry) => {
    state.set(e, 'visiting');
    for (const f of Object.values(e.definition.fields)) {
      if (f.type !== 'fk') continue;
      const target = byName.get(f.to!);
      if (!target) continue;
      if (target === e || state.get(target) === 'visiting') late.set(e, [...(late.get(e) ?? []), f]);
      else if (!state.has(target)) visit(target);
    }
    state.set(e, 'done');
    order.push(e);
  };
  for (const e of modelList) if (!state.has(e)) visit(e);
  return { order, late };
}
