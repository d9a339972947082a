/**
 * API versions as the generator reads them: schema/versions.yaml lists the versions served, and a
 * field or model says with `since:` / `until:` in which of them it exists ("4.0" covers every 4.x).
 */
import type { ModelFile, Versions } from '../generated/schema-format.js';
import type { FieldDefinition, ModelEntry } from '../runtime/core/types.js';
import { compareVersions, filtersIn, formsOf, inVersion, typeKeyIn } from '../runtime/core/versions.js';
import { detailPath, listPath } from './naming.js';

/** The versions that serve a model's endpoint. */
export function servedVersions(versions: Versions, spec: Pick<ModelFile, 'since' | 'until'>): string[] {
  return versions.versions.map((v) => v.version).filter((v) => inVersion(v, spec));
}

/**
 * The paths of a model that `moved:` in some versions: each served version at or after a move, with
 * the path of the latest move at or before it (versions at the model's own path are left out).
 */
export function movedPaths(versions: string[], spec: Pick<ModelFile, 'moved' | 'endpoint'>): Record<string, { list: string; detail: string }> | undefined {
  const moves = Object.entries(spec.moved ?? {}).sort(([a], [b]) => compareVersions(a, b));
  if (!moves.length) return undefined;
  const out: Record<string, { list: string; detail: string }> = {};
  for (const version of versions) {
    const move = moves.filter(([since]) => inVersion(version, { since })).pop()?.[1];
    if (move) out[version] = { list: listPath(move.app, move.endpoint ?? spec.endpoint), detail: detailPath(move.app, move.endpoint ?? spec.endpoint) };
  }
  return out;
}

/** The generated OpenAPI document of a version: openapi.json for the default one, else openapi-<version>.json. */
export function documentFile(versions: Versions, version: string): string {
  return version === versions.default ? 'openapi.json' : `openapi-${version}.json`;
}

/** An alias whose field the version does not have is that field under another name there (4.6's object_types is content_types). */
function renamedIn(version: string, f: FieldDefinition, fields: Record<string, FieldDefinition>): FieldDefinition {
  const of = f.type === 'alias' ? fields[f.of!] : undefined;
  if (!of || inVersion(version, of)) return f;
  const { since: _s, until: _u, ...target } = of;
  return { ...target, name: f.name, label: f.label, ...(f.since ? { since: f.since } : {}), ...(f.until ? { until: f.until } : {}) };
}

/** A field read-only from a version on (`read_only_since:`) is read-only in its document. */
const readOnlyIn = (version: string, f: FieldDefinition): FieldDefinition => (f.readOnlySince && inVersion(version, { since: f.readOnlySince }) ? { ...f, readOnly: true } : f);

/** A generic relation's type half under the name the version gives it (4.x's object_type of a contact assignment). */
const typeKeyOf = (version: string, f: FieldDefinition): FieldDefinition => (f.typeKeySince ? { ...f, typeKey: typeKeyIn(f, version) } : f);

/** The models a version serves, each with that version's forms, fields and filters (what its OpenAPI document describes). */
export function entriesInVersion(entries: ModelEntry[], version: string): ModelEntry[] {
  const served = new Set(entries.filter((e) => e.routes.versions.includes(version)).map((e) => e.definition.name));
  // a generic relation points at the models the version serves (a change record at a MAC address is 4.x's)
  const typesIn = (f: FieldDefinition): FieldDefinition => (f.types ? { ...f, types: Object.fromEntries(Object.entries(f.types).filter(([, m]) => served.has(m))) } : f);
  return entries.filter((e) => served.has(e.definition.name)).map((e) => ({
    ...e,
    routes: { ...e.routes, ...e.routes.byVersion?.[version] },
    definition: { ...e.definition, fields: Object.fromEntries(Object.entries(e.definition.fields).filter(([, f]) => inVersion(version, f)).map(([n, f]) => [n, typeKeyOf(version, readOnlyIn(version, typesIn(renamedIn(version, f, e.definition.fields))))])) },
    serializer: { ...e.serializer, ...formsOf(e, version) },
    filters: filtersIn(e, version),
  }));
}
