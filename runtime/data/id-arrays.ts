/**
 * On PostgreSQL, a long list of ids (`"id" in ($1, …, $1000)`, a page's nested rows, tags, links)
 * becomes one array parameter (`"id" = any($1::bigint[])`): the backend then parses and plans one
 * parameter instead of a thousand on every request, and the statement's text is the same for any
 * number of ids, so the connection prepares it once (pg-batch.ts) instead of running a new text each time.
 */

/** Lists of at most this many ids keep one parameter per id (pg-batch.ts prepares such texts as they are). */
export const MOST_LISTED = 100;

export interface ArrayForm {
  /** the statement with the id list as `= any($n::bigint[])` and the other parameters renumbered */
  sql: string;
  /** for each parameter of `sql`: the index of the original binding, or -1 for the array of ids */
  from: number[];
}

/**
 * `native`: a statement with `$n` parameters; `slots[i]`: which id the i-th binding is (-1: not an
 * id). Each `in (…)` list made of exactly the ids, in order, becomes the array; null when there is none.
 */
export function arrayForm(native: string, slots: number[], count: number): ArrayForm | null {
  const from: number[] = [];
  let changed = false;
  const param = (original: number) => {
    from.push(original);
    return `$${from.length}`;
  };
  const sql = native.replace(/ in \((\$\d+(?:, \$\d+)*)\)|\$(\d+)\b/g, (whole, list: string | undefined, single: string | undefined) => {
    if (single !== undefined) return param(Number(single) - 1);
    const indexes = list!.split(', ').map((p) => Number(p.slice(1)) - 1);
    if (indexes.length !== count || indexes.some((b, i) => slots[b] !== i)) return ` in (${indexes.map(param).join(', ')})`;
    changed = true;
    return ` = any(${param(-1)}::bigint[])`;
  });
  return changed ? { sql, from } : null;
}

/** The bindings for an ArrayForm's statement. */
export function arrayBindings(form: ArrayForm, bindings: unknown[], ids: number[]): unknown[] {
  return form.from.map((b) => (b < 0 ? ids : bindings[b]));
}
