/**
 * What rendering a model's rows in one form loads and runs (its relations, links, counts, computed
 * fields), worked out once per model, version and form.
 */
import { hooksOf, storedField } from './registry.js';
import type { FieldDefinition, ModelEntry } from '../core/types.js';
import { compiledOf, type Put } from './representation.js';
import { formsOf } from '../core/versions.js';
import { displayRoots, genericOf } from './row-cache.js';

/** What rendering a model's rows in one form loads and runs, worked out once per form (planOf). */
export interface LoadPlan {
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

export type ComputedHook = NonNullable<ReturnType<typeof hooksOf>[number]['computed']>[string];

const plans = new Map<string, LoadPlan>();

/** The fields a computed `any:<field>,!<field>` field reads. */
function anyParts(entry: ModelEntry, raw: FieldDefinition): FieldDefinition[] {
  if (raw.type !== 'computed' || !raw.source?.startsWith('any:')) return [];
  return raw.source.slice(4).split(',').map((n) => entry.definition.fields[n.replace(/^!/, '')]);
}

/** The plan of a model's full or brief form less `exclude`, narrowed to `only` when given (bounded: a full map starts again). */
export function planOf(entry: ModelEntry, brief: boolean, exclude: string[], version: string | undefined, only?: string[]): LoadPlan {
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
    // the form's reverse_one fields, and those an `any:` field of the form reads
    reverseOne: [...new Set([...stored.map(([raw]) => raw), ...stored.flatMap(([raw]) => anyParts(entry, raw))]
      .filter((raw) => raw.type === 'computed' && raw.source?.startsWith('reverse_one:')))],
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
