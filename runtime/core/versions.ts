/**
 * API versions as data: the versions served (generated/versions.ts, from schema/versions.yaml), the
 * forms a model shows in each (its serializer's `versions`), and how a request names one.
 */
import type { FieldDefinition, FilterSet, ModelEntry, VersionForms } from './types.js';
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

/** Whether a generic relation may point at content type `type` in `version` (its `typesSince`). */
export function typeInVersion(field: { typesSince?: Record<string, string> }, type: string, version: string | undefined): boolean {
  const since = field.typesSince?.[type];
  return !since || version === undefined || inVersion(version, { since });
}

/** A model's forms in `version` (unknown or none: its default forms). */
export function formsOf(entry: ModelEntry, version: string | undefined): VersionForms {
  return (version !== undefined && entry.serializer.versions[version]) || entry.serializer;
}

/** Every field name any version's nested form shows (what loading a nested row must cover). */
export function nestedInAnyVersion(entry: ModelEntry): string[] {
  return [...new Set([entry.serializer.nested, ...Object.values(entry.serializer.versions).map((v) => v.nested)].flat())];
}

/** A model's display templates in `version`: its `display_since:` ones there, else its own. */
export function displayIn(entry: ModelEntry, version: string | undefined): string[] {
  return formsOf(entry, version).display ?? entry.definition.display;
}

/** Every display template any version shows (what loading a row for its display must cover). */
export function displaysInAnyVersion(entry: ModelEntry): string[] {
  return [...new Set([entry.definition.display, ...Object.values(entry.serializer.versions).map((v) => v.display ?? [])].flat())];
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

/** What deleting a relation's target does through `version`: its `onDeleteSince` entry for the latest version at or before it, else `onDelete`. */
export function onDeleteIn(field: { onDelete?: FieldDefinition['onDelete']; onDeleteSince?: FieldDefinition['onDeleteSince'] }, version: string | undefined): FieldDefinition['onDelete'] {
  if (version === undefined || !field.onDeleteSince) return field.onDelete;
  const from = Object.keys(field.onDeleteSince).filter((since) => inVersion(version, { since })).sort(compareVersions).pop();
  return from === undefined ? field.onDelete : field.onDeleteSince[from];
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

/** An alias whose field the version does not have is that field under another name there (4.6's object_types is content_types). */
function renamedIn(version: string, f: FieldDefinition, fields: Record<string, FieldDefinition>): FieldDefinition {
  const of = f.type === 'alias' ? fields[f.of!] : undefined;
  if (!of || inVersion(version, of)) return f;
  const { since: _s, until: _u, ...target } = of;
  return { ...target, name: f.name, label: f.label, ...(f.since ? { since: f.since } : {}), ...(f.until ? { until: f.until } : {}) };
}

/** A field read-only from a version on (`read_only_since:`) is read-only there. */
const readOnlyIn = (version: string, f: FieldDefinition): FieldDefinition => (f.readOnlySince && inVersion(version, { since: f.readOnlySince }) ? { ...f, readOnly: true } : f);

/** A generic relation's type half under the name the version gives it (4.x's object_type of a contact assignment). */
const typeKeyOf = (version: string, f: FieldDefinition): FieldDefinition => (f.typeKeySince ? { ...f, typeKey: typeKeyIn(f, version) } : f);

/**
 * A model's fields as `version` has them (what its OpenAPI document and OPTIONS answers describe):
 * those that exist there, a rename's alias as the field it renames, read-only and type keys as of the
 * version; `types` narrows a generic relation's targets (to the models the version serves).
 */
export function fieldsInVersion(fields: Record<string, FieldDefinition>, version: string, types: (f: FieldDefinition) => FieldDefinition = (f) => f): Record<string, FieldDefinition> {
  return Object.fromEntries(Object.entries(fields).filter(([, f]) => inVersion(version, f)).map(([n, f]) => [n, typeKeyOf(version, readOnlyIn(version, types(renamedIn(version, f, fields))))]));
}

/** A model's list and detail paths in `version` (its `moved:` path there, else its own). */
export function pathsIn(entry: ModelEntry, version: string | undefined): { list: string; detail: string } {
  return (version !== undefined && entry.routes.byVersion?.[version]) || entry.routes;
}
