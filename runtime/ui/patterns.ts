/**
 * Range patterns of the add forms, as NetBox writes them: `Gi1/0/[1-48]` is 48 names, `[ge,xe]-0/0/[0-3]`
 * eight (every combination, left to right). A bracket holds comma-separated items, each a word, a
 * numeric range (`1-48`, `01-12` keeps the zero padding) or a one-letter range (`a-d`).
 */

export const PATTERN_LIMIT = 1000;

/** The items of one bracket, or an error naming what is wrong. */
function bracketItems(inside: string): string[] | string {
  const items: string[] = [];
  for (const part of inside.split(',')) {
    const range = /^([0-9]+)-([0-9]+)$/.exec(part) ?? /^([a-zA-Z])-([a-zA-Z])$/.exec(part);
    if (!range) {
      if (part === '') return 'an empty item in a range';
      items.push(part);
      continue;
    }
    const [, from, to] = range;
    if (/^[0-9]/.test(from)) {
      const a = Number(from);
      const b = Number(to);
      if (b < a) return `the range ${part} runs backwards`;
      if (b - a >= PATTERN_LIMIT) return `the range ${part} is too long`;
      const width = from.startsWith('0') && from.length > 1 ? from.length : 0;
      for (let n = a; n <= b; n++) items.push(String(n).padStart(width, '0'));
    } else {
      const a = from.charCodeAt(0);
      const b = to.charCodeAt(0);
      if (b < a) return `the range ${part} runs backwards`;
      for (let c = a; c <= b; c++) items.push(String.fromCharCode(c));
    }
  }
  return items;
}

/** The names a pattern stands for (the text itself when it has no brackets), or an error message. */
export function expandPattern(text: string): string[] | string {
  let names = [''];
  let rest = text;
  while (rest) {
    const open = rest.indexOf('[');
    if (open < 0) {
      if (rest.includes(']')) return 'a ] without its [';
      names = names.map((n) => n + rest);
      break;
    }
    const close = rest.indexOf(']', open);
    if (close < 0) return 'a [ without its ]';
    const head = rest.slice(0, open);
    if (head.includes(']')) return 'a ] without its [';
    const items = bracketItems(rest.slice(open + 1, close));
    if (typeof items === 'string') return items;
    names = names.flatMap((n) => items.map((i) => n + head + i));
    if (names.length > PATTERN_LIMIT) return `more than ${PATTERN_LIMIT} names`;
    rest = rest.slice(close + 1);
  }
  return names;
}

/**
 * The bodies of a posted add form whose pattern fields expand: one per name. Every pattern field
 * expands to the same count, or to one value (then repeated). Errors are keyed by field.
 */
export function expandBodies(body: Record<string, unknown>, fields: string[]): { bodies: Record<string, unknown>[]; errors: Record<string, string[]> } {
  const expanded = new Map<string, string[]>();
  const errors: Record<string, string[]> = {};
  for (const name of fields) {
    const value = body[name];
    if (typeof value !== 'string' || !value.includes('[')) continue;
    const names = expandPattern(value);
    if (typeof names === 'string') errors[name] = [`Invalid pattern: ${names}.`];
    else expanded.set(name, names);
  }
  const counts = new Set([...expanded.values()].map((v) => v.length).filter((n) => n > 1));
  if (counts.size > 1) {
    for (const name of expanded.keys()) errors[name] ??= ['The patterns expand to different numbers of values.'];
  }
  if (Object.keys(errors).length) return { bodies: [body], errors };
  const count = counts.size ? [...counts][0] : 1;
  const bodies = Array.from({ length: count }, (_, i) => {
    const one = { ...body };
    for (const [name, values] of expanded) one[name] = values.length === 1 ? values[0] : values[i];
    return one;
  });
  return { bodies, errors };
}
