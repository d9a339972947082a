/**
 * Webhook conditions, NetBox's JSON language: a condition set is `{"and": [...]}` or `{"or": [...]}`
 * whose items are conditions `{attr, value, op, negate}` or nested sets. `attr` is a dotted path into
 * the object's API representation (`status.value`, `site.slug`; through a list it collects from every
 * element: `tags.slug`). Operators: eq, gt, gte, lt, lte, in, contains, regex (anchored at the start).
 *
 * `conditionError` is the check made when a webhook is saved; `matches` never throws: a comparison
 * that makes no sense for the data at hand (`gt` against null) is simply false.
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const OPERATORS = ['eq', 'gt', 'gte', 'lt', 'lte', 'in', 'contains', 'regex'] as const;
type Operator = (typeof OPERATORS)[number];

/** Operators allowed for each type of `value`, as NetBox allows them. */
const ALLOWED: Record<string, Operator[]> = {
  string: ['eq', 'contains', 'regex'],
  boolean: ['eq', 'contains'],
  number: ['eq', 'gt', 'gte', 'lt', 'lte', 'contains'],
  list: ['eq', 'in', 'contains'],
  null: ['eq'],
};

const CONDITION_KEYS = ['attr', 'value', 'op', 'negate'];

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function kind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'list';
  return typeof v;
}

/** Python-style leading inline flags, `(?i)abc`, become RegExp flags; the match is anchored at the start. */
export function compileRegex(pattern: string): RegExp {
  const inline = /^\(\?([ims]+)\)/.exec(pattern);
  const flags = inline ? [...new Set(inline[1])].join('') : '';
  return new RegExp(`^(?:${inline ? pattern.slice(inline[0].length) : pattern})`, flags);
}

function isSet(node: unknown): boolean {
  return isObject(node) && ('and' in node || 'or' in node);
}

function setError(node: unknown, path: string): string | null {
  if (!isObject(node)) return `${path}: a condition set must be an object with one key, "and" or "or".`;
  const keys = Object.keys(node);
  if (keys.length !== 1 || (keys[0] !== 'and' && keys[0] !== 'or')) {
    return `${path}: a condition set must have exactly one key, "and" or "or" (found ${keys.map((k) => `"${k}"`).join(', ') || 'none'}).`;
  }
  const items = node[keys[0]];
  const at = `${path}.${keys[0]}`;
  if (!Array.isArray(items)) return `${at}: must be a list of conditions.`;
  for (let i = 0; i < items.length; i++) {
    const error = isSet(items[i]) ? setError(items[i], `${at}[${i}]`) : itemError(items[i], `${at}[${i}]`);
    if (error) return error;
  }
  return null;
}

function itemError(node: unknown, path: string): string | null {
  if (!isObject(node)) return `${path}: a condition must be an object with "attr" and "value".`;
  const unknown = Object.keys(node).filter((k) => !CONDITION_KEYS.includes(k));
  if (unknown.length) return `${path}: unknown key ${unknown.map((k) => `"${k}"`).join(', ')} (a condition has attr, value, op and negate).`;
  if (typeof node.attr !== 'string' || !node.attr.trim()) return `${path}: "attr" must be a dotted attribute path such as "status.value".`;
  if (!('value' in node)) return `${path}: "value" is required.`;
  const op = node.op ?? 'eq';
  if (typeof op !== 'string' || !(OPERATORS as readonly string[]).includes(op)) return `${path}: invalid operator ${JSON.stringify(op)}; use one of ${OPERATORS.join(', ')}.`;
  if ('negate' in node && typeof node.negate !== 'boolean') return `${path}: "negate" must be true or false.`;
  const type = kind(node.value);
  const allowed = ALLOWED[type];
  if (!allowed) return `${path}: "value" must be a string, number, boolean, list or null.`;
  if (!allowed.includes(op as Operator)) return `${path}: operator "${op}" cannot be used with a ${type} value (allowed: ${allowed.join(', ')}).`;
  if (op === 'regex') {
    try { compileRegex(node.value as string); } catch (error) { return `${path}: invalid regular expression: ${(error as Error).message}`; }
  }
  return null;
}

/** Why stored conditions are invalid, or null when they are fine. null and {} mean "always". */
export function conditionError(conditions: unknown): string | null {
  if (conditions === null || conditions === undefined || (isObject(conditions) && !Object.keys(conditions).length)) return null;
  return setError(conditions, 'conditions');
}

/** The value at a dotted path; through a list, the values of every element; missing → null. */
export function valueAt(data: unknown, attr: string): unknown {
  let current: unknown = data;
  for (const key of attr.split('.')) {
    if (Array.isArray(current)) current = current.map((item) => (isObject(item) && Object.hasOwn(item, key) ? item[key] : null));
    else if (isObject(current)) current = Object.hasOwn(current, key) ? current[key] : null;
    else return null;
  }
  return current ?? null;
}

function equal(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => equal(x, b[i]));
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && equal(a[k], b[k]));
  }
  return false;
}

function compare(op: Operator, actual: unknown, value: unknown): boolean {
  switch (op) {
    case 'eq': return equal(actual, value);
    case 'gt': case 'gte': case 'lt': case 'lte': {
      if (typeof actual !== 'number' || typeof value !== 'number') return false;
      return op === 'gt' ? actual > value : op === 'gte' ? actual >= value : op === 'lt' ? actual < value : actual <= value;
    }
    case 'in': return Array.isArray(value) && value.some((v) => equal(v, actual));
    case 'contains':
      if (Array.isArray(actual)) return actual.some((v) => equal(v, value));
      if (typeof actual === 'string' && typeof value === 'string') return actual.includes(value);
      if (isObject(actual) && typeof value === 'string') return Object.hasOwn(actual, value);
      return false;
    case 'regex':
      return typeof actual === 'string' && typeof value === 'string' && compileRegex(value).test(actual);
  }
}

function evaluateSet(node: Record<string, unknown>, data: unknown): boolean {
  if (Array.isArray(node.and)) return node.and.every((item) => evaluateItem(item, data));
  if (Array.isArray(node.or)) return node.or.some((item) => evaluateItem(item, data));
  return false;
}

function evaluateItem(item: unknown, data: unknown): boolean {
  if (!isObject(item)) return false;
  if (isSet(item)) return evaluateSet(item, data);
  let result: boolean;
  try {
    result = compare((item.op ?? 'eq') as Operator, valueAt(data, String(item.attr)), item.value);
  } catch {
    result = false;
  }
  return item.negate === true ? !result : result;
}

/** Whether conditions hold for an object's data; no conditions always hold. */
export function matches(conditions: unknown, data: Json | Record<string, unknown>): boolean {
  if (conditions === null || conditions === undefined) return true;
  if (!isObject(conditions)) return false;
  return !Object.keys(conditions).length || evaluateSet(conditions, data);
}
