/**
 * A change-log snapshot in an API version's shape. A snapshot is taken once, from the stored model
 * (runtime/data/changes.ts: every stored field under its own name, a generic relation's type half
 * under its `type_key`); each version shows it as NetBox of that version would have recorded it,
 * from the same per-version field data its representations use: fields the version lacks are left
 * out (a prefix's `site` in 4.6, its `scope_type` in 3.7), a field another name stands for there is
 * shown under that name (4.6's `object_types` for `content_types`), a generic relation's type half
 * under the version's key (4.6's `object_type`), and a field the version converts is converted (3.7's
 * disk sizes in GB). Keys that are not fields of the model (tags, custom fields, timestamps, what a
 * hook adds) are kept as they are.
 */
import { apiVersions } from '../../generated/versions.js';
import type { ModelEntry } from './types.js';
import { conversions, type Conversion } from './conversions.js';
import { formsOf, inVersion, typeKeyIn } from './versions.js';

/** One key of the stored snapshot: dropped (no `to`), renamed, and maybe converted. */
interface Step { from: string; to?: string; conversion?: Conversion }

const plans = new WeakMap<ModelEntry, Map<string, Map<string, Step>>>();

/** The steps that turn a model's stored snapshot into `version`'s, worked out once per model and version. */
function planOf(entry: ModelEntry, version: string): Map<string, Step> {
  let byVersion = plans.get(entry);
  if (!byVersion) plans.set(entry, (byVersion = new Map()));
  const known = byVersion.get(version);
  if (known) return known;
  const steps: Step[] = [];
  const fields = Object.values(entry.definition.fields);
  const convert = formsOf(entry, version).convert;
  for (const f of fields) {
    if (['computed', 'alias', 'password', 'token_key'].includes(f.type)) continue;
    if (f.type === 'generic_fk') {
      const typeKey = f.typeKey ?? `${f.name}_type`;
      const shown = inVersion(version, f);
      steps.push({ from: typeKey, to: shown ? typeKeyIn(f, version) : undefined }, { from: `${f.name}_id`, to: shown ? `${f.name}_id` : undefined });
      continue;
    }
    // a stored column no version shows (a prefix's cached region) is no version's
    if (f.readOnly && f.writeOnly) { steps.push({ from: f.name }); continue; }
    if (inVersion(version, f)) {
      steps.push({ from: f.name, to: f.name, conversion: convert[f.name] ? conversions[convert[f.name]] : undefined });
      continue;
    }
    // shown under another name in this version (an alias of it that exists here), else not at all
    const alias = fields.find((a) => a.type === 'alias' && a.of === f.name && inVersion(version, a));
    steps.push({ from: f.name, to: alias?.name });
  }
  const plan = new Map(steps.map((s) => [s.from, s]));
  byVersion.set(version, plan);
  return plan;
}

/** A stored snapshot of an object of `entry` as `version` (undefined: the default one) shows it; null stays null. */
export function snapshotIn(entry: ModelEntry, snapshot: Record<string, unknown> | null, version: string | undefined): Record<string, unknown> | null {
  if (!snapshot || typeof snapshot !== 'object') return snapshot;
  const moved = planOf(entry, version ?? apiVersions.default);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(snapshot)) {
    const step = moved.get(key);
    if (!step) { out[key] = value; continue; }
    if (!step.to) continue;
    out[step.to] = step.conversion ? step.conversion.read(value, snapshot, key) : value;
  }
  return out;
}
