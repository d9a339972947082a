/**
 * Strict filters: which query parameters of a list are neither a filter of the model (with one of its
 * lookups), nor a custom field filter, nor a control parameter. NetBox ignores such parameters, so a
 * typo (`device__name__isw`) or a filter this service lacks matches everything, and an automation that
 * deletes or changes what a list returns acts on the wrong objects. With STRICT_FILTERS (the default)
 * they are a 400 that names each one.
 */
import { errors } from '../core/errors.js';
import type { ModelEntry } from '../core/types.js';
import { customFieldLookups, type CustomFieldDef } from './customfields.js';
import { LOOKUPS, RESERVED, lookupFamily } from './filters.js';

/** Filters and lookups that take one value (a boolean, `__empty`, a free-text search). */
function singleValued(entry: ModelEntry, name: string, lookup: string): boolean {
  const filter = entry.filters[name];
  if (!filter || lookup === 'empty' || filter.kind === 'q') return true;
  if (filter.kind === 'field') return filter.family === 'boolean';
  return (filter.kind === 'path' || filter.kind === 'reverse') && !!filter.boolean;
}

/** What is wrong with one parameter name, or null when the list understands it. */
function problem(entry: ModelEntry, param: string, customFields: CustomFieldDef[], controls: ReadonlySet<string>): string | null {
  if (RESERVED.has(param) || controls.has(param) || entry.filters[param]) return null;
  if (param.startsWith('cf_')) {
    const [name, lookup = 'exact', ...rest] = param.slice(3).split('__');
    const def = customFields.find((c) => c.name === name);
    if (!def) return `No custom field named '${name}' applies to ${entry.routes.list}.`;
    const lookups = customFieldLookups(def);
    if (!lookups.length) return `Custom field '${name}' cannot be filtered on.`;
    if (rest.length || !lookups.includes(lookup)) return `'${rest.length ? [lookup, ...rest].join('__') : lookup}' is not a lookup of custom field '${name}'; use one of: ${lookups.join(', ')}.`;
    return null;
  }
  const at = param.lastIndexOf('__');
  const filter = at > 0 ? entry.filters[param.slice(0, at)] : undefined;
  if (filter) {
    const lookups = LOOKUPS[lookupFamily(filter)];
    if (lookups.includes(param.slice(at + 2))) return null;
    const hint = lookups.length ? `use one of: ${lookups.join(', ')}` : 'it takes no lookups';
    return `'${param.slice(at + 2)}' is not a lookup of filter '${param.slice(0, at)}'; ${hint}.`;
  }
  return `Unknown filter: ${entry.routes.list} has no filter named '${param}'. Unknown parameters are refused, so that a typo cannot widen the result.`;
}

const NONE: ReadonlySet<string> = new Set();

/**
 * 400 naming every parameter the list does not understand (strict), and every single-valued filter
 * given more than one value (always: which one was meant cannot be told). `controls`: control
 * parameters of the request's API version beside the reserved ones (4.6's `start`).
 */
export function checkFilterNames(entry: ModelEntry, params: URLSearchParams, customFields: CustomFieldDef[], strict: boolean, controls: ReadonlySet<string> = NONE): void {
  const problems: Record<string, string[]> = {};
  for (const param of new Set(params.keys())) {
    const reason = problem(entry, param, customFields, controls);
    if (reason) {
      if (strict) problems[param] = [reason];
      continue;
    }
    if (RESERVED.has(param) || (controls.has(param) && !entry.filters[param]) || param.startsWith('cf_')) continue;
    const at = entry.filters[param] ? -1 : param.lastIndexOf('__');
    const [name, lookup] = at < 0 ? [param, 'exact'] : [param.slice(0, at), param.slice(at + 2)];
    const given = params.getAll(param).filter((v) => v !== '').length;
    if (given > 1 && singleValued(entry, name, lookup)) problems[param] = [`This filter takes one value; ${given} were given.`];
  }
  if (Object.keys(problems).length) throw errors.validation(problems);
}
