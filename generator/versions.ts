/**
 * API versions as the generator reads them: schema/versions.yaml lists the versions served, and a
 * field or model says with `since:` / `until:` in which of them it exists ("4.0" covers every 4.x).
 */
import type { ModelFile, Versions } from '../generated/schema-format.js';
import type { FieldDefinition, ModelEntry } from '../runtime/core/types.js';
import { compareVersions, fieldsInVersion, filtersIn, formsOf, inVersion, typeInVersion } from '../runtime/core/versions.js';
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

/** The models a version serves, each with that version's forms, fields and filters (what its OpenAPI document describes). */
export function entriesInVersion(entries: ModelEntry[], version: string): ModelEntry[] {
  const served = new Set(entries.filter((e) => e.routes.versions.includes(version)).map((e) => e.definition.name));
  // a generic relation points at the models the version serves (a change record at a MAC address is 4.x's)
  const typesIn = (f: FieldDefinition): FieldDefinition => (f.types ? { ...f, types: Object.fromEntries(Object.entries(f.types).filter(([ct, m]) => served.has(m) && typeInVersion(f, ct, version))) } : f);
  return entries.filter((e) => served.has(e.definition.name)).map((e) => ({
    ...e,
    routes: { ...e.routes, ...e.routes.byVersion?.[version] },
    definition: { ...e.definition, fields: fieldsInVersion(e.definition.fields, version, typesIn) },
    serializer: { ...e.serializer, ...formsOf(e, version) },
    filters: filtersIn(e, version),
  }));
}
