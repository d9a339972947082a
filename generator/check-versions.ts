/** The versions schema/ names (since, until, convert…) are versions schema/versions.yaml serves. */
import { SYSTEM_FIELDS, type LoadedModel } from './schema-index.js';

/** `since:`, `until:`, `convert:`, `brief_since:` and `display_since:` name versions of schema/versions.yaml; a rename's fields exist. */
export function checkVersionKeys(models: LoadedModel[], known: Set<string>, problems: string[]): void {
  const major = new Set([...known].map((v) => v.split('.')[0]));
  // "4.0" names the first release of a major version: a version served, or the start of a major one served
  const ok = (v: string) => known.has(v) || (v.endsWith('.0') && major.has(v.split('.')[0]));
  for (const { spec, file } of models) {
    for (const key of ['since', 'until'] as const) if (spec[key] && !ok(spec[key]!)) problems.push(`${file}: ${key}: unknown version '${spec[key]}'`);
    for (const v of Object.keys(spec.brief_since ?? {})) if (!ok(v)) problems.push(`${file}: brief_since: unknown version '${v}'`);
    for (const v of Object.keys(spec.display_since ?? {})) if (!ok(v)) problems.push(`${file}: display_since: unknown version '${v}'`);
    for (const v of Object.keys(spec.moved ?? {})) if (!ok(v)) problems.push(`${file}: moved: unknown version '${v}'`);
    for (const [v, list] of Object.entries(spec.brief_since ?? {})) {
      for (const name of list) if (!spec.fields[name] && !SYSTEM_FIELDS.includes(name) && !spec.counts?.[name]) problems.push(`${file}: brief_since.${v}: unknown field '${name}'`);
    }
    for (const [name, f] of Object.entries(spec.fields)) {
      for (const key of ['since', 'until', 'read_only_since'] as const) if (f[key] && !ok(f[key]!)) problems.push(`${file}: fields.${name}.${key}: unknown version '${f[key]}'`);
      for (const v of Object.keys(f.convert ?? {})) if (!ok(v)) problems.push(`${file}: fields.${name}.convert: unknown version '${v}'`);
    }
    for (const [name, f] of Object.entries(spec.filters ?? {})) {
      for (const key of ['since', 'until'] as const) if (f[key] && !ok(f[key]!)) problems.push(`${file}: filters.${name}.${key}: unknown version '${f[key]}'`);
    }
  }
}
