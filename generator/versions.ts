/**
 * API versions as the generator reads them: schema/versions.yaml lists the versions served, and a
 * field or model says with `since:` / `until:` in which of them it exists ("4.0" covers every 4.x).
 */
import type { ModelFile, Versions } from '../generated/schema-format.js';
import type { ModelEntry } from '../runtime/core/types.js';
import { filtersIn, formsOf, inVersion } from '../runtime/core/versions.js';

/** The versions that serve a model's endpoint. */
export function servedVersions(versions: Versions, spec: Pick<ModelFile, 'since' | 'until'>): string[] {
  return versions.versions.map((v) => v.version).filter((v) => inVersion(v, spec));
}

/** The generated OpenAPI document of a version: openapi.json for the default one, else openapi-<version>.json. */
export function documentFile(versions: Versions, version: string): string {
  return version === versions.default ? 'openapi.json' : `openapi-${version}.json`;
}

/** The models a version serves, each with that version's forms, fields and filters (what its OpenAPI document describes). */
export function entriesInVersion(entries: ModelEntry[], version: string): ModelEntry[] {
  return entries.filter((e) => e.routes.versions.includes(version)).map((e) => ({
    ...e,
    definition: { ...e.definition, fields: Object.fromEntries(Object.entries(e.definition.fields).filter(([, f]) => inVersion(version, f))) },
    serializer: { ...e.serializer, ...formsOf(e, version) },
    filters: filtersIn(e, version),
  }));
}
