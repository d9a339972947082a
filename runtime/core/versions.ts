/**
 * API versions as data: the versions served (generated/versions.ts, from schema/versions.yaml), the
 * forms a model shows in each (its serializer's `versions`), and how a request names one.
 */
import type { FilterSet, ModelEntry, VersionForms } from './types.js';
import { conversions } from './conversions.js';

/** Numeric order of "major.minor" versions. */
export function compareVersions(a: string, b: string): number {
  const [am, an] = a.split('.').map(Number);
  const [bm, bn] = b.split('.').map(Number);
  return am - bm || an - bn;
}

/** Does something with these keys (a field's or model's `since:` / `until:`) exist in `version`? */
export function inVersion(version: string, keys: { since?: string; until?: string }): boolean {
  return (!keys.since || compareVersions(version, keys.since) >= 0) && (!keys.until || compareVersions(version, keys.until) < 0);
}

/** A model's forms in `version` (unknown or none: its default forms). */
export function formsOf(entry: ModelEntry, version: string | undefined): VersionForms {
  return (version !== undefined && entry.serializer.versions[version]) || entry.serializer;
}

/** Every field name any version's nested form shows (what loading a nested row must cover). */
export function nestedInAnyVersion(entry: ModelEntry): string[] {
  return [...new Set([entry.serializer.nested, ...Object.values(entry.serializer.versions).map((v) => v.nested)].flat())];
}

/** The version an `Accept` header names (`application/json; version=4.6`), or undefined. */
export function acceptedVersion(accept: string | undefined): string | undefined {
  if (!accept) return undefined;
  const m = /(?:^|[;,\s])version\s*=\s*"?([^";,\s]+)"?/i.exec(accept);
  return m?.[1];
}

/** A field's default on create through `version`: its `default_since` entry for the latest version at or before it, else `default`. */
export function defaultIn(field: { default?: unknown; defaultSince?: Record<string, unknown> }, version: string | undefined): unknown {
  if (version === undefined || !field.defaultSince) return field.default;
  const from = Object.keys(field.defaultSince).filter((since) => inVersion(version, { since })).sort(compareVersions).pop();
  return from === undefined ? field.default : field.defaultSince[from];
}

/** A generic relation's key for its type half in `version`: its `type_key_since` entry for the latest version at or before it, else `typeKey`. */
export function typeKeyIn(field: { name: string; typeKey?: string; typeKeySince?: Record<string, string> }, version: string | undefined): string {
  const base = field.typeKey ?? `${field.name}_type`;
  if (version === undefined || !field.typeKeySince) return base;
  const from = Object.keys(field.typeKeySince).filter((since) => inVersion(version, { since })).sort(compareVersions).pop();
  return from === undefined ? base : field.typeKeySince[from];
}

/** Each name a generic relation's type half has, with the versions it has it in (`since:` / `until:`). */
export function typeKeyVersions(field: { name: string; typeKey?: string; typeKeySince?: Record<string, string> }): [string, { since?: string; until?: string }][] {
  const base = field.typeKey ?? `${field.name}_type`;
  const steps = Object.entries(field.typeKeySince ?? {}).sort(([a], [b]) => compareVersions(a, b));
  if (!steps.length) return [[base, {}]];
  const out: [string, { since?: string; until?: string }][] = [[base, { until: steps[0][0] }]];
  steps.forEach(([since, key], i) => out.push([key, { since, ...(steps[i + 1] ? { until: steps[i + 1][0] } : {}) }]));
  return out;
}

const versionFilters = new WeakMap<ModelEntry, Map<string, FilterSet>>();

/** A model's filters in `version`: those whose `since:` / `until:` (or their field's) include it. */
export function filtersIn(entry: ModelEntry, version: string): FilterSet {
  let byVersion = versionFilters.get(entry);
  if (!byVersion) versionFilters.set(entry, (byVersion = new Map()));
  let set = byVersion.get(version);
  if (!set) byVersion.set(version, (set = Object.fromEntries(Object.entries(entry.filters).filter(([, f]) => inVersion(version, f)))));
  return set;
}

const versionEntries = new WeakMap<ModelEntry, Map<string, ModelEntry>>();

/** A model as a list in `version` filters it: the entry itself when every filter exists there, else a copy with that version's filters. */
export function filteringIn(entry: ModelEntry, version: string): ModelEntry {
  let byVersion = versionEntries.get(entry);
  if (!byVersion) versionEntries.set(entry, (byVersion = new Map()));
  let view = byVersion.get(version);
  if (!view) {
    let filters = filtersIn(entry, version);
    // a field the version shows through a conversion is filtered in its units (3.7's disk__gte in GB)
    const convert = formsOf(entry, version).convert;
    const converted = Object.entries(filters).filter(([, f]) => f.kind === 'field' && !f.lookup && conversions[convert[f.field] ?? '']?.bounds);
    if (converted.length) filters = { ...filters, ...Object.fromEntries(converted.map(([name, f]) => [name, { ...f, conversion: convert[(f as { field: string }).field] }])) };
    byVersion.set(version, (view = filters === entry.filters || (Object.keys(filters).length === Object.keys(entry.filters).length && !converted.length) ? entry : { ...entry, filters }));
  }
  return view;
}

/** A model's list and detail paths in `version` (its `moved:` path there, else its own). */
export function pathsIn(entry: ModelEntry, version: string | undefined): { list: string; detail: string } {
  return (version !== undefined && entry.routes.byVersion?.[version]) || entry.routes;
}
