/**
 * Which form of its objects a read answers with: `?brief=`, `?exclude=config_context`, and in a
 * version with field selection (schema/versions.yaml `field_selection:`, NetBox 4.0's dynamic fields)
 * `?fields=a,b` (only those keys, in the form's order; it wins over `omit` and `brief`, as in NetBox)
 * and `?omit=a,b` (every key but those). Only the fields kept are loaded, so a list still costs a
 * fixed number of queries. NetBox drops a name its serializer lacks; with STRICT_FILTERS such a name
 * is a 400 naming it, as an unknown filter is, since a typo would read as a value that is missing.
 */
import { errors } from '../core/errors.js';
import { parseBoolean } from '../core/query-values.js';
import { formsOf, typeKeyIn } from '../core/versions.js';
import type { ModelEntry } from '../core/types.js';

export interface ReadForm {
  brief: boolean;
  exclude: string[];
  /** form fields to render (all of the full form when absent) */
  fields?: string[];
  /** the answer's keys to keep (`fields`) or drop (`omit`) where they split a field's keys (a generic relation's three) */
  keep?: ReadonlySet<string>;
  drop?: readonly string[];
}

function wantsBrief(params: URLSearchParams): boolean {
  const v = params.get('brief');
  if (v === null || v === '') return false;
  try { return parseBoolean('brief', v); } catch { return true; }
}

const names = (params: URLSearchParams, key: string): string[] => params.getAll(key).flatMap((v) => v.split(',')).map((s) => s.trim()).filter(Boolean);

/** The answer's keys of each field of the version's full form (a generic relation shows three). */
function keysOf(entry: ModelEntry, version: string): Map<string, string[]> {
  return new Map(formsOf(entry, version).full.map((n) => {
    const f = entry.definition.fields[n];
    return [n, f?.type === 'generic_fk' ? [typeKeyIn(f, version), `${n}_id`, f.nestedKey ?? n] : [n]];
  }));
}

/** The form a read of `entry` answers with, from its query string. */
export function readForm(entry: ModelEntry, params: URLSearchParams, version: { version: string; fieldSelection?: boolean }, strict: boolean): ReadForm {
  const form: ReadForm = { brief: wantsBrief(params), exclude: names(params, 'exclude') };
  if (!version.fieldSelection) return form;
  const [key, asked] = names(params, 'fields').length ? ['fields', names(params, 'fields')] as const : ['omit', names(params, 'omit')] as const;
  if (!asked.length) return form;
  const keys = keysOf(entry, version.version);
  const known = new Set([...keys.values()].flat());
  const unknown = asked.filter((n) => !known.has(n));
  if (unknown.length && strict) throw errors.validation({ [key]: unknown.map((n) => `${entry.routes.list} has no field named '${n}'.`) });
  const wanted = new Set(asked);
  const touched = [...keys].filter(([, ks]) => ks.some((k) => wanted.has(k)));
  if (key === 'fields') {
    const split = touched.some(([, ks]) => ks.some((k) => !wanted.has(k)));
    return { brief: false, exclude: [], fields: touched.map(([n]) => n), ...(split ? { keep: wanted } : {}) };
  }
  const whole = touched.filter(([, ks]) => ks.every((k) => wanted.has(k))).map(([n]) => n);
  const split = touched.length > whole.length;
  return { brief: false, exclude: [...form.exclude, ...whole], ...(split ? { drop: asked } : {}) };
}

/** The rendered objects less the keys a split field's selection leaves out. */
export function trimKeys<T extends Record<string, unknown>>(objects: T[], form: ReadForm): T[] {
  if (form.keep) for (const o of objects) for (const k of Object.keys(o)) if (!form.keep.has(k)) delete o[k];
  if (form.drop) for (const o of objects) for (const k of form.drop) delete o[k];
  return objects;
}
